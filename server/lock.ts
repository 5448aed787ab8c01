// PGlite's data directory belongs to one process. A lock file with the owner's pid makes sure two
// processes never open it at once; a lock left by a dead process is taken over.
import { closeSync, mkdirSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';

export interface Lock {
  release(): void;
}

export const lockPath = (dataDir: string): string => join(dataDir, 'invoicing.lock');
export const adminSocketPath = (dataDir: string): string => join(dataDir, 'admin.sock');

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Takes the lock, or returns the pid of the live process holding it. */
export function acquireLock(dataDir: string): Lock | { heldBy: number } {
  mkdirSync(dataDir, { recursive: true });
  const path = lockPath(dataDir);
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const fd = openSync(path, 'wx');
      writeSync(fd, String(process.pid));
      closeSync(fd);
      let released = false;
      const release = () => {
        if (released) return;
        released = true;
        try {
          if (readFileSync(path, 'utf8') === String(process.pid)) rmSync(path, { force: true });
        } catch {
          /* already gone */
        }
      };
      process.once('exit', release);
      return { release };
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      const pid = Number(readFileSync(path, 'utf8').trim());
      if (pid && pid !== process.pid && alive(pid)) return { heldBy: pid };
      rmSync(path, { force: true });
    }
  }
  throw new Error(`Could not lock ${path}.`);
}

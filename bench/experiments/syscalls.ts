// Syscalls per request of each server (strace -c -f on its process for a short fixed load):
//   npx tsx bench/experiments/syscalls.ts kept.json S2
import { readFileSync } from 'node:fs';
import { spawn } from 'node:child_process';
import autocannon from 'autocannon';
import { workload, type ScenarioId } from '../scenarios.ts';
import { startBaseline, startOurs } from '../servers.ts';
const kept = JSON.parse(readFileSync(process.argv[2]!, 'utf8'));
const id = (process.argv[3] ?? 'S2') as ScenarioId;
for (const start of [() => startBaseline({ databaseUrl: kept.url }), () => startOurs({ databaseUrl: kept.url })]) {
  const p = await start();
  try {
    const wl = workload(id, p.name, kept.data)!;
    let i = 0;
    const run = (amount: number) => autocannon({ url: p.url, connections: 8, amount, requests: [{ setupRequest: (req) => ({ ...req, ...wl.nth(i++) }) }] });
    await run(500);
    const st = spawn('strace', ['-c', '-f', '-p', String(p.pid)], { stdio: ['ignore', 'ignore', 'pipe'] });
    let out = '';
    st.stderr.on('data', (b) => (out += b));
    await new Promise((r) => setTimeout(r, 500));
    const r = await run(2000);
    st.kill('SIGINT');
    await new Promise((r) => st.once('exit', r));
    console.log(`== ${p.name} ${id}: ${r['2xx']} responses`);
    for (const line of out.split('\n').filter((l) => /^\s*[\d.]+\s+[\d.]+\s+\d+\s+\d+/.test(l))) {
      const f = line.trim().split(/\s+/);
      const calls = Number(f[3]);
      console.log(`  ${f.at(-1)}: ${(calls / r['2xx']).toFixed(2)} per request`);
    }
  } finally {
    await p.stop();
  }
}

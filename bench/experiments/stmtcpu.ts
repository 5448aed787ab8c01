// CPU of a PostgreSQL backend per execution of each SQL file given (prepared, run N times,
// alternating files, /proc of the backend): npx tsx bench/experiments/stmtcpu.ts URL N a.sql b.sql …
import { readFileSync } from 'node:fs';
import postgres from 'postgres';
import { cpuMsOf } from '../servers.ts';
const [url, n, ...files] = process.argv.slice(2);
const sql = postgres(url!, { max: 1, onnotice: () => {} });
const pid = Number((await sql`select pg_backend_pid() as pid`)[0]!.pid);
const texts = files.map((f) => readFileSync(f, 'utf8').replace(/;\s*$/, ''));
const acc = files.map(() => [] as number[]);
for (let round = 0; round < 6; round++) {
  for (let k = 0; k < files.length; k++) {
    const i = round % 2 ? files.length - 1 - k : k;
    for (let w = 0; w < 5; w++) await sql.unsafe(texts[i]!, [], { prepare: true });
    const before = cpuMsOf(pid);
    for (let j = 0; j < Number(n); j++) await sql.unsafe(texts[i]!, [], { prepare: true });
    acc[i]!.push((cpuMsOf(pid) - before) / Number(n));
  }
}
files.forEach((f, i) => {
  const v = [...acc[i]!].sort((a, b) => a - b);
  console.log(`${f}: median ${v[Math.floor(v.length / 2)]!.toFixed(3)} ms CPU per execution (runs: ${v.map((x) => x.toFixed(3)).join(' ')})`);
});
await sql.end();

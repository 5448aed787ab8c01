// Checks that the baseline answers S1, S2, S6 and S3 as our service does (bodies byte for byte,
// S3's ids, numbers and times masked; the headers both send): npx tsx bench/experiments/same-responses.ts [admin URL]
import { createBenchDatabase, seed } from '../seed.ts';
import { startBaseline, startOurs } from '../servers.ts';
import { workload, type ScenarioId } from '../scenarios.ts';
const db = await createBenchDatabase(process.argv[2] ?? 'postgres://postgres@127.0.0.1:5432/postgres');
let differ = 0;
try {
  const data = await seed(db.url, { clients: 50, invoices: 300, maxLines: 10 });
  const b = await startBaseline({ databaseUrl: db.url });
  const o = await startOurs({ databaseUrl: db.url });
  const mask = (s: string) => s.replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, '<id>').replace(/\d{4}-\d\d-\d\dT[\d:.]+Z/g, '<time>').replace(/INV-\d+/g, '<number>');
  try {
    for (const id of ['S1', 'S2', 'S6', 'S3'] as ScenarioId[]) {
      const got = [];
      for (const s of [b, o]) {
        const r = workload(id, s.name, data)!.nth(3);
        const res = await fetch(s.url + r.path, { method: r.method, headers: r.headers, body: r.body });
        got.push({ status: res.status, body: await res.text(), headers: Object.fromEntries([...res.headers].filter(([k]) => !['date', 'x-ratelimit-remaining', 'x-ratelimit-reset', 'location'].includes(k))) });
      }
      // S3: ours renders a create's record in JavaScript (no space after commas), the baseline's json_agg writes ", ".
      const [x, y] = id === 'S3' ? got.map((g) => ({ ...g, body: mask(JSON.stringify(JSON.parse(g.body))), headers: { ...g.headers, 'content-length': '-' } })) : got;
      const same = x!.status === y!.status && x!.body === y!.body && JSON.stringify(x!.headers) === JSON.stringify(y!.headers);
      if (!same) differ++;
      console.log(`${id}: ${same ? 'same' : 'DIFFERENT'} (${x!.status}/${y!.status}, ${x!.body.length}/${y!.body.length} bytes)`);
      if (!same) {
        const at = [...x!.body].findIndex((c, i) => c !== y!.body[i]);
        console.log(`  baseline: ${x!.body.slice(Math.max(0, at - 80), at + 120)}\n  ours:     ${y!.body.slice(Math.max(0, at - 80), at + 120)}\n  headers: ${JSON.stringify(x!.headers)}\n           ${JSON.stringify(y!.headers)}`);
      }
    }
  } finally {
    await b.stop();
    await o.stop();
  }
} finally {
  await db.drop();
}
process.exit(differ ? 1 : 0);

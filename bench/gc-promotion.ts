// What a young collection promotes while one invoice is read over and over, through the engine
// (as GET /api/invoices/<id> with plain JSON does) or through the driver with the same SQL text.
// A diagnostic: before patches/postgres+3.4.9.patch item 9 (a query's settling closures), the
// engine's reads promoted about 2 MB per young collection where the driver's promoted 0.17 MB,
// depending on whether V8 inlined the driver's Query constructor into the caller; both now
// promote next to nothing.
//
//   DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres npx tsx bench/gc-promotion.ts
//
// Each mode runs in a child process (`--trace-gc-nvp`, and the node flags in GC_FLAGS, such as
// `--no-opt`), a minimal fastify server on its own database, loaded by one autocannon connection
// for 8 s; the median `promoted=` of its young collections in the second half of the run is
// printed. Not part of `npm run bench`.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { freePort } from './servers.ts';

const MODES = ['engine', 'driver'] as const;
type Mode = (typeof MODES)[number];

async function serve(mode: Mode, url: string, port: number, companyId: string): Promise<void> {
  const { default: Fastify } = await import('fastify');
  const { openDatabase } = await import('../server/db.ts');
  const { createEngine } = await import('../engine/operations.ts');
  const { defaultFormats } = await import('../formats/negotiate.ts');
  const { model, tables } = await import('../server/model.ts');
  const { webhookOutbox } = await import('../server/webhooks/outbox.ts');
  const d = await openDatabase({ databaseUrl: url, maxConnections: 4 });
  let text: string | undefined;
  const engine = createEngine(d.db, model, tables, { raw: (t, p) => ((text ??= t), d.raw(t, p)), outbox: webhookOutbox(model) });
  const projection = defaultFormats().negotiate('application/json').projection!;
  const invoice = model.resources.find((r) => r.name === 'Invoice')!;
  const principal = { company: { id: companyId } } as never;
  const app = Fastify({ logger: false });
  app.get<{ Params: { id: string } }>('/i/:id', async (req, reply) => {
    let body: string;
    if (mode === 'engine' || !text) body = (await engine.json!.readVersioned(principal, invoice, req.params.id, projection)).text;
    else body = (await d.raw(text, [req.params.id]))[0]!.body as string;
    return reply.type('application/json; charset=utf-8').send(body);
  });
  await app.listen({ port, host: '127.0.0.1' });
}

async function measure(mode: Mode, url: string, ids: string[], companyId: string): Promise<number> {
  const port = await freePort();
  const child = spawn(process.execPath, ['--trace-gc-nvp', ...(process.env.GC_FLAGS ? process.env.GC_FLAGS.split(' ') : []), '--import', 'tsx', fileURLToPath(import.meta.url), '--serve', mode, url, String(port), companyId], { stdio: ['ignore', 'pipe', 'inherit'] });
  const lines: { at: number; promoted: number }[] = [];
  let buffered = '';
  child.stdout!.on('data', (b: Buffer) => {
    buffered += b.toString();
    const parts = buffered.split('\n');
    buffered = parts.pop()!;
    for (const l of parts) {
      const m = / gc=s .* promoted=(\d+)/.exec(l);
      if (m) lines.push({ at: Date.now(), promoted: Number(m[1]) });
    }
  });
  for (;;) {
    try {
      await fetch(`http://127.0.0.1:${port}/i/${ids[0]}`);
      break;
    } catch {
      await new Promise((r) => setTimeout(r, 200));
    }
  }
  let i = 0;
  const started = Date.now();
  const seconds = 8;
  await autocannon({ url: `http://127.0.0.1:${port}`, connections: 1, duration: seconds, requests: [{ setupRequest: (r) => ({ ...r, path: `/i/${ids[i++ % ids.length]}` }) }] });
  child.kill('SIGINT');
  await new Promise((r) => child.once('exit', r));
  const late = lines.filter((l) => l.at >= started + (seconds * 1000) / 2).map((l) => l.promoted).sort((a, b) => a - b);
  return late.length ? late[Math.floor(late.length / 2)]! : NaN;
}

if (process.argv[2] === '--serve') {
  const [, , , mode, url, port, company] = process.argv;
  await serve(mode as Mode, url!, Number(port), company!);
} else {
  const adminUrl = process.env.DATABASE_URL;
  if (!adminUrl) throw new Error('DATABASE_URL is required (a PostgreSQL where bench databases can be created).');
  const { createBenchDatabase, seed } = await import('./seed.ts');
  const db = await createBenchDatabase(adminUrl);
  try {
    const data = await seed(db.url, { clients: 50, invoices: 2000, maxLines: 10 });
    for (const mode of MODES) {
      const promoted = await measure(mode, db.url, data.invoiceIds, data.companyId);
      process.stdout.write(`${mode.padEnd(7)} median promoted per young collection: ${(promoted / 2 ** 20).toFixed(2)} MB\n`);
    }
  } finally {
    await db.drop();
  }
}

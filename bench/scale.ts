// `npm run bench -- --size 1000000`: does a request's cost grow with the company's data? One
// database holds a company of `--size` invoices (generated in SQL, bench/seed-sql.ts) next to the
// usual company of 20,000 (bench/seed.ts); the same single requests are sent to our service for
// each company, one at a time (median of `--samples`, after two warm-ups), and each scenario
// reports the ratio of its latency at `--size` to its latency at 20,000.
//
//   npm run bench -- --size 1000000 --keep          seed, measure, keep the database (name printed)
//   npm run bench -- --size 1000000 --reuse <name>  measure again on a kept database (migrations
//                                                   added since are applied by the server at start)
//   npm run bench -- --size 1000000 --reuse <name> --alone <name2>
//                                                   also measure the text searches of the 20,000
//                                                   company in a database where it is alone (seeded
//                                                   when <name2> is `new`, then kept)
//   psql -c 'drop database <name> with (force)'     when done
import { writeFileSync, mkdirSync } from 'node:fs';
import postgres from 'postgres';
import { openDatabase } from '../server/db.ts';
import { tokenCreate } from '../server/cli/commands.ts';
import { encodeCursor } from '../engine/keyset.ts';
import { MAX_PAGE_OFFSET } from '../engine/query.ts';
import { model } from '../server/model.ts';
import { checkTotals, createBenchDatabase, seed, type BenchDatabase } from './seed.ts';
import { seedInSql } from './seed-sql.ts';
import { ROOT, startOurs } from './servers.ts';

export interface ScaleOptions {
  size: number;
  small: number;
  samples: number;
  keep: boolean;
  reuse?: string;
  /** A database holding the 20,000 company alone (`new`: seed one), to compare its text searches with. */
  alone?: string;
  adminUrl: string;
  out: string;
}

interface Company {
  label: string;
  name: string;
  email: string;
  invoices: number;
  companyId: string;
  token: string;
}

interface Probe {
  id: string;
  title: string;
  request(c: Company): Promise<{ path: string; init: RequestInit; expect: number }>;
}

const log = (s: string) => process.stdout.write(`${s}\n`);
const SMALL = { name: 'Bench Co', email: 'bench@example.com' };
const LARGE = { name: 'Scale Co', email: 'scale@example.com' };

const gql = (c: Company, query: string) => ({
  path: '/api/graphql',
  init: { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json', 'x-api-token': c.token }, body: JSON.stringify({ query }) },
  expect: 200,
});
const rest = (c: Company, path: string, expect = 200) => ({ path, init: { headers: { accept: 'application/ld+json', 'x-api-token': c.token } }, expect });
/** A page of a partial-match search alone (no totalCount, so no count): the page's own cost. */
const GQL_SEARCH = (part: string) => `{ invoices(first: 30, number: ${JSON.stringify(part)}) { edges { cursor node { number total } } } }`;
const GQL_PAGE = (after: string) =>
  `{ invoices(first: 30${after}) { totalCount pageInfo { hasNextPage endCursor } edges { cursor node { number total client { name currency } lines(first: 10) { edges { node { description qty price } } } } } } }`;

export async function runScale(o: ScaleOptions, admin: postgres.Sql | null = null): Promise<number> {
  let db: BenchDatabase;
  const adminConn = admin ?? postgres(o.adminUrl, { max: 1, onnotice: () => {} });
  if (o.reuse) {
    const u = new URL(o.adminUrl);
    u.pathname = `/${o.reuse}`;
    db = { name: o.reuse, url: u.toString(), drop: async () => adminConn.unsafe(`drop database if exists ${o.reuse} with (force)`).then(() => {}) };
    log(`== reusing database ${db.name}`);
  } else {
    db = await createBenchDatabase(o.adminUrl);
    log(`== database ${db.name}${o.keep ? ' (kept: measure again with --reuse ' + db.name + ')' : ''}`);
  }
  const sql = postgres(db.url, { max: 1, onnotice: () => {} });
  const results: { id: string; title: string; small: number; large: number; ratio: number; status: string }[] = [];
  let server: Awaited<ReturnType<typeof startOurs>> | undefined;
  try {
    if (!o.reuse) {
      const t0 = Date.now();
      const small = await seed(db.url, { clients: 1000, invoices: o.small, maxLines: 10 });
      log(`   ${SMALL.name}: ${small.counts.invoices.toLocaleString('en-US')} invoices, ${small.counts.lines.toLocaleString('en-US')} lines in ${(small.ms / 1000).toFixed(1)} s`);
      const large = await seedInSql(db.url, LARGE.name, LARGE.email, { clients: Math.max(1000, Math.round(o.size / 100)), invoices: o.size, maxLines: 10 }, log);
      log(`   ${LARGE.name}: ${large.counts.invoices.toLocaleString('en-US')} invoices, ${large.counts.lines.toLocaleString('en-US')} lines, ${large.counts.payments.toLocaleString('en-US')} payments in ${(large.ms / 1000).toFixed(1)} s`);
      const t1 = Date.now();
      if (!process.env.SCALE_SKIP_CHECK) await checkTotals(sql);
      log(`   totals checked independently in ${((Date.now() - t1) / 1000).toFixed(1)} s`);
      await sql`vacuum analyze`;
      log(`== seeded in ${((Date.now() - t0) / 1000).toFixed(0)} s`);
    }
    // Fresh tokens (a kept database's were printed once and are not stored).
    const database = await openDatabase({ databaseUrl: db.url, maxConnections: 1 });
    const companies: Company[] = [];
    try {
      for (const [label, c] of [['20k', SMALL], ['large', LARGE]] as const) {
        const token = (await tokenCreate({ db: database.db }, { email: c.email, company: c.name, name: `scale ${Date.now()}` })).trim();
        const [row] = (await sql`select c.id, (select count(*) from invoices i where i.company_id = c.id)::int as n from companies c where c.name = ${c.name}`) as unknown as [{ id: string; n: number }];
        companies.push({ label, ...c, token, companyId: row.id, invoices: row.n });
      }
    } finally {
      await database.close();
    }

    // The keyset cursor of the record in the middle of the default order (id), read once per
    // company (with an offset, here only) and encoded as the API encodes its cursors.
    const cursors = new Map<string, string>();
    const middle = async (c: Company): Promise<string> => {
      let cursor = cursors.get(c.label);
      if (cursor === undefined) {
        const [row] = (await sql.unsafe('select id from invoices where company_id = $1 order by id offset $2 limit 1', [c.companyId, Math.floor(c.invoices / 2)])) as unknown as [{ id: string }];
        cursors.set(c.label, (cursor = encodeCursor(model.get('Invoice'), [], { id: row.id })));
      }
      return cursor;
    };
    const middlePage = (c: Company) => Math.max(1, Math.ceil(c.invoices / 30 / 2));
    const deepestPage = Math.floor(MAX_PAGE_OFFSET / 30) + 1;

    const probes: Probe[] = [
      { id: 'L1', title: 'GET /api/invoices (page 1, JSON-LD)', request: async (c) => rest(c, '/api/invoices') },
      // Past MAX_PAGE_OFFSET a page number is refused (CONTRACT §10): the middle of a large company is a 400.
      { id: 'L2', title: 'GET /api/invoices?page=<middle> (400 past MAX_PAGE_OFFSET)', request: async (c) => rest(c, `/api/invoices?page=${middlePage(c)}`, (middlePage(c) - 1) * 30 > MAX_PAGE_OFFSET ? 400 : 200) },
      { id: 'L2a', title: 'GET /api/invoices?page=<deepest allowed>', request: async (c) => rest(c, `/api/invoices?page=${Math.min(deepestPage, Math.max(1, Math.ceil(c.invoices / 30)))}`) },
      {
        id: 'L2b',
        title: 'GET /api/invoices?after=<cursor in the middle>',
        request: async (c) => rest(c, `/api/invoices?after=${await middle(c)}`),
      },
      // Partial-match text filters (CONTRACT §10): rare (0042: 112 and 300 matches), frequent
      // (INV-0: every number of the 20,000 company, one in ten of the large one; counted up to
      // 10,000), short (12, no trigram: one in 13 and one in 20), and the page alone (GraphQL
      // without totalCount).
      { id: 'L3', title: 'GET /api/invoices?number=0042 (rare)', request: async (c) => rest(c, '/api/invoices?number=0042') },
      { id: 'L3b', title: 'GET /api/invoices?number=INV-0 (frequent)', request: async (c) => rest(c, '/api/invoices?number=INV-0') },
      { id: 'L3c', title: 'GET /api/invoices?number=12 (short, no trigram)', request: async (c) => rest(c, '/api/invoices?number=12') },
      { id: 'L3d', title: 'GraphQL invoices(number: "INV-0", first: 30), no totalCount', request: async (c) => gql(c, GQL_SEARCH('INV-0')) },
      { id: 'L3e', title: 'GraphQL invoices(number: "0042", first: 30), no totalCount', request: async (c) => gql(c, GQL_SEARCH('0042')) },
      { id: 'L4', title: 'GET /api/invoices?order[total]=desc', request: async (c) => rest(c, '/api/invoices?order%5Btotal%5D=desc') },
      { id: 'L5', title: 'GET /api/invoices?status=paid', request: async (c) => rest(c, '/api/invoices?status=paid') },
      { id: 'L6', title: 'GraphQL invoices(first: 30) with client and lines', request: async (c) => gql(c, GQL_PAGE('')) },
      {
        id: 'L7',
        title: 'the same after: a cursor in the middle',
        request: async (c) => gql(c, GQL_PAGE(`, after: ${JSON.stringify(await middle(c))}`)),
      },
    ];

    /**
     * The median latency of each probe for each target (a company on a server), the targets'
     * requests interleaved (one of each in turn), so that the load of the machine, shared with
     * other work, weighs on all of them alike.
     */
    const measure = async (list: Probe[], who: { c: Company; url: string }[], each: (p: Probe, ms: Record<string, number>, status: string) => void) => {
      for (const p of list) {
        let status = 'ok';
        const requests = await Promise.all(who.map(async (w) => ({ ...w, ...(await p.request(w.c)) })));
        const times = new Map<string, number[]>(who.map((w) => [w.c.label, []]));
        for (let i = 0; i < o.samples + 2; i++) {
          for (const w of requests) {
            const t = performance.now();
            const res = await fetch(w.url + w.path, w.init);
            const body = await res.text();
            const took = performance.now() - t;
            if (res.status !== w.expect || (w.path === '/api/graphql' && body.includes('"errors"'))) status = `${w.c.label}: ${res.status} ${body.slice(0, 160)}`;
            if (i >= 2) times.get(w.c.label)!.push(took);
          }
        }
        const ms: Record<string, number> = {};
        for (const [label, xs] of times) ms[label] = xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
        each(p, ms, status);
      }
    };
    server = await startOurs({ databaseUrl: db.url });
    log(`== single requests, median of ${o.samples} after 2 warm-ups (ms)`);
    await measure(probes, companies.map((c) => ({ c, url: server!.url })), (p, ms, status) => {
      const r = { id: p.id, title: p.title, small: ms['20k']!, large: ms.large!, ratio: ms.large! / ms['20k']!, status };
      results.push(r);
      log(`  ${p.id} ${p.title}: ${r.small.toFixed(1)} ms / ${r.large.toFixed(1)} ms = ${r.ratio.toFixed(2)}×${status === 'ok' ? '' : `  (${status})`}`);
    });

    // The 20,000 company's text searches where it is alone (a second server on a database of its
    // own), interleaved with the same searches beside the large company: what the large one costs it.
    const aloneResults: { id: string; title: string; shared: number; alone: number; ratio: number; status: string }[] = [];
    let aloneServer: Awaited<ReturnType<typeof startOurs>> | undefined;
    if (o.alone) {
      let other: BenchDatabase;
      if (o.alone === 'new') {
        other = await createBenchDatabase(o.adminUrl);
        const seeded = await seed(other.url, { clients: 1000, invoices: o.small, maxLines: 10 });
        const s2 = postgres(other.url, { max: 1, onnotice: () => {} });
        await s2`vacuum analyze`;
        await s2.end({ timeout: 5 });
        log(`== ${SMALL.name} alone: database ${other.name} (kept: reuse with --alone ${other.name}), ${seeded.counts.invoices.toLocaleString('en-US')} invoices`);
      } else {
        const u = new URL(o.adminUrl);
        u.pathname = `/${o.alone}`;
        other = { name: o.alone, url: u.toString(), drop: async () => {} };
        log(`== ${SMALL.name} alone: reusing database ${other.name}`);
      }
      const database = await openDatabase({ databaseUrl: other.url, maxConnections: 1 });
      let alone: Company;
      try {
        const token = (await tokenCreate({ db: database.db }, { email: SMALL.email, company: SMALL.name, name: `scale ${Date.now()}` })).trim();
        alone = { ...companies[0]!, label: 'alone', token };
      } finally {
        await database.close();
      }
      try {
        aloneServer = await startOurs({ databaseUrl: other.url });
        const text = probes.filter((p) => p.id.startsWith('L3'));
        await measure(text, [{ c: companies[0]!, url: server.url }, { c: alone, url: aloneServer.url }], (p, ms, status) => {
          const r = { id: p.id, title: p.title, shared: ms['20k']!, alone: ms.alone!, ratio: ms['20k']! / ms.alone!, status };
          aloneResults.push(r);
          log(`  ${p.id} ${p.title}: ${r.shared.toFixed(1)} ms beside the large company / ${r.alone.toFixed(1)} ms alone = ${r.ratio.toFixed(2)}×`);
        });
      } finally {
        await aloneServer?.stop().catch(() => {});
      }
    }
    const [sizes] = (await sql`select count(*) filter (where c.name = ${SMALL.name})::int as small, count(*) filter (where c.name = ${LARGE.name})::int as large from invoices i join companies c on c.id = i.company_id`) as unknown as [{ small: number; large: number }];
    const head = `| Scenario | ${sizes.small.toLocaleString('en-US')} invoices | ${sizes.large.toLocaleString('en-US')} invoices | ratio |\n|---|--:|--:|--:|`;
    let table = [head, ...results.map((r) => `| ${r.id} ${r.title}${r.status === 'ok' ? '' : ' (wrong answer)'} | ${r.small.toFixed(1)} ms | ${r.large.toFixed(1)} ms | ${r.ratio.toFixed(2)}× |`)].join('\n');
    if (aloneResults.length) {
      table += `\n\n| ${SMALL.name}'s text search | beside ${sizes.large.toLocaleString('en-US')} | alone | ratio |\n|---|--:|--:|--:|\n`;
      table += aloneResults.map((r) => `| ${r.id} ${r.title}${r.status === 'ok' ? '' : ' (wrong answer)'} | ${r.shared.toFixed(1)} ms | ${r.alone.toFixed(1)} ms | ${r.ratio.toFixed(2)}× |`).join('\n');
    }
    log(`\n${table}\n`);
    mkdirSync(`${ROOT}bench/results`, { recursive: true });
    writeFileSync(o.out, `${JSON.stringify({ date: new Date().toISOString(), sizes, samples: o.samples, results, alone: aloneResults }, null, 2)}\n`);
    const command = `npm run bench -- ${process.argv.slice(2).join(' ')}`;
    writeFileSync(o.out.replace(/\.json$/, '.md'), `Made by \`${command}\` on ${new Date().toISOString().slice(0, 16)} UTC, median of ${o.samples} single requests after 2 warm-ups.\n\n${table}\n`);
    return [...results, ...aloneResults].some((r) => r.status !== 'ok') ? 1 : 0;
  } finally {
    await server?.stop().catch(() => {});
    await sql.end({ timeout: 5 });
    if (!o.keep && !o.reuse) await db.drop().catch((e) => log(`could not drop ${db.name}: ${(e as Error).message}`));
    else log(`   database ${db.name} kept (drop it with: psql -h 127.0.0.1 -U postgres -c 'drop database ${db.name} with (force)')`);
    if (!admin) await adminConn.end({ timeout: 5 });
  }
}

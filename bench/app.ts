// The first page of /app (CONTRACT §17, issue 37): what a browser downloads and how long until a
// list shows, on this machine. A server in this process on an embedded database (or DATABASE_URL)
// with 100 clients; Debian's Chromium signs in, then opens /app/clients cold (empty cache) and
// warm (revalidated files), `--runs` times each. Counts requests and the bytes of JavaScript and
// CSS (uncompressed: the server does not compress), and the time from navigation to the list's
// first row. Results go to stdout (bench/results/app.md records a run).
//   npx tsx bench/app.ts [--runs 5]
import { parseArgs } from 'node:util';
import type { Page, Request } from 'playwright-core';
import { userCreate } from '../server/cli/commands.ts';
import { client, startTestServer, tokenFor } from '../test/helpers.ts';
import { launchChromium } from '../test/support/browser.ts';

const { values: args } = parseArgs({ options: { runs: { type: 'string', default: '5' } } });
const runs = Number(args.runs);

const t = await startTestServer();
const PASSWORD = 'a long secret phrase';
await userCreate({ db: t.db.database.db }, { email: 'bench@app.test', password: PASSWORD, company: 'Bench', role: 'admin', currency: 'USD' });
const api = client(t, await tokenFor(t, { email: 'bench@app.test', company: 'Bench' }));
for (let i = 0; i < 100; i++) await api.post('/api/clients', { name: `Client ${String(i).padStart(3, '0')}` });

const browser = await launchChromium();
const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
const page = await context.newPage();
await page.goto(`${t.url}/login?next=/app`);
await page.getByLabel('Email').fill('bench@app.test');
await page.getByLabel('Password').fill(PASSWORD);
await page.getByRole('button', { name: 'Sign in' }).click();
await page.waitForURL(`${t.url}/app`);

interface Run {
  requests: number;
  apiRequests: number;
  js: number;
  css: number;
  html: number;
  ms: number;
}

async function measure(p: Page, cold: boolean): Promise<Run> {
  const cdp = await p.context().newCDPSession(p);
  await cdp.send('Network.enable');
  await cdp.send('Network.setCacheDisabled', { cacheDisabled: cold });
  const seen: Request[] = [];
  const onRequest = (r: Request) => void seen.push(r);
  p.on('request', onRequest);
  const start = Date.now();
  await p.goto(`${t.url}/app/clients`);
  await p.locator('main tbody th a').first().waitFor();
  const ms = Date.now() - start;
  p.off('request', onRequest);
  const run: Run = { requests: seen.length, apiRequests: 0, js: 0, css: 0, html: 0, ms };
  for (const r of seen) {
    const res = await r.response();
    const size = res ? (await res.body().catch(() => Buffer.alloc(0))).length : 0;
    if (r.url().includes('/api/')) run.apiRequests++;
    const type = res?.headers()['content-type'] ?? '';
    if (type.includes('javascript')) run.js += size;
    else if (type.includes('css')) run.css += size;
    else if (type.includes('html')) run.html += size;
  }
  await cdp.detach();
  return run;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
for (const cold of [true, false]) {
  const all: Run[] = [];
  for (let i = 0; i < runs; i++) all.push(await measure(page, cold));
  const r = all.at(-1)!;
  console.log(`${cold ? 'cold' : 'warm'}: ${r.requests} requests (${r.apiRequests} to /api), JS ${(r.js / 1024).toFixed(1)} KiB, CSS ${(r.css / 1024).toFixed(1)} KiB, HTML ${(r.html / 1024).toFixed(1)} KiB; time to the list's first row: median ${median(all.map((x) => x.ms))} ms (min ${Math.min(...all.map((x) => x.ms))}, max ${Math.max(...all.map((x) => x.ms))}) over ${runs} runs`);
}
await browser.close();
await t.close();

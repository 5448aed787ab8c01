// The first page of /app (CONTRACT §17, §20; issue 43's Performance section): what a browser
// downloads and how long until a list shows, with 20,000 invoices in the company; whether a warm
// load fetches anything; and how long the invoice editor takes to recompute its totals with 100
// lines. A fresh PostgreSQL database (BENCH_DATABASE_URL, else the local server) seeded in SQL
// (bench/seed-sql.ts: 200 clients, 20,000 invoices of 1–5 lines, payments), our server started as
// in production (bench/servers.ts), Debian's Chromium:
// - cold (`--runs` times, cache disabled): /app/invoices — requests, bytes of HTML, JavaScript and
//   CSS as served (the server does not compress) and gzip-compressed (level 6, what a compressing
//   proxy sends), time from navigation to the list's first row;
// - warm (`--runs` times, cache on, after one load): the same, with the requests Chromium made to
//   the network (not answered from its cache) listed: the page and the list's data only;
// - the editor: /app/invoices/new with 100 lines; the shared rule (web/app/rules/totals.js's
//   computeTotals) and the form's whole recompute (views/totals.js's totalsOf: reading the 100
//   lines' inputs, then the rule), timed with performance.now in the page; and one price typed
//   (an input event) until the page shows the new total (render included, paint excluded).
//   npx tsx bench/app.ts [--runs 5] [--invoices 20000] [--keep]
import { gzipSync } from 'node:zlib';
import { parseArgs } from 'node:util';
import type { CDPSession, Page } from 'playwright-core';
import { launchChromium } from '../test/support/browser.ts';
import { createBenchDatabase } from './seed.ts';
import { seedInSql } from './seed-sql.ts';
import { startOurs } from './servers.ts';

const { values: args } = parseArgs({ options: { runs: { type: 'string', default: '5' }, invoices: { type: 'string', default: '20000' }, keep: { type: 'boolean', default: false } } });
const runs = Number(args.runs);
const ADMIN = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const EMAIL = 'bench@app.bench';
const log = (s: string) => process.stdout.write(`${s}\n`);

const db = await createBenchDatabase(ADMIN);
log(`== database ${db.name}`);
const seeded = await seedInSql(db.url, 'App Bench', EMAIL, { clients: 200, invoices: Number(args.invoices), maxLines: 5 }, () => {});
log(`   seeded ${seeded.counts.invoices} invoices, ${seeded.counts.lines} lines, ${seeded.counts.payments} payments, ${seeded.counts.clients} clients in ${(seeded.ms / 1000).toFixed(0)} s`);
const server = await startOurs({ databaseUrl: db.url });
const browser = await launchChromium();

interface Load {
  requests: number;
  /** Requests that reached the network (not answered from Chromium's cache). */
  network: string[];
  apiRequests: number;
  /** `description`: the model's description module (JavaScript, apart from the application's code). */
  bytes: Record<'html' | 'js' | 'css' | 'description', { raw: number; gzip: number }>;
  ms: number;
}

async function load(page: Page, cdp: CDPSession, path: string): Promise<Load> {
  const seen = new Map<string, { url: string; cached: boolean; type: string; id: string }>();
  const onSent = (e: { requestId: string; request: { url: string } }) => void seen.set(e.requestId, { url: e.request.url, cached: false, type: '', id: e.requestId });
  const onCached = (e: { requestId: string }) => {
    const r = seen.get(e.requestId);
    if (r) r.cached = true;
  };
  const onResponse = (e: { requestId: string; response: { mimeType: string; fromDiskCache?: boolean; fromMemoryCache?: boolean; fromPrefetchCache?: boolean } }) => {
    const r = seen.get(e.requestId);
    if (!r) return;
    r.type = e.response.mimeType;
    if (e.response.fromDiskCache || e.response.fromMemoryCache || e.response.fromPrefetchCache) r.cached = true;
  };
  cdp.on('Network.requestWillBeSent', onSent);
  cdp.on('Network.requestServedFromCache', onCached);
  cdp.on('Network.responseReceived', onResponse);
  const bodies: Promise<void>[] = [];
  const out: Load = { requests: 0, network: [], apiRequests: 0, bytes: { html: { raw: 0, gzip: 0 }, js: { raw: 0, gzip: 0 }, css: { raw: 0, gzip: 0 }, description: { raw: 0, gzip: 0 } }, ms: 0 };
  const onPageResponse = (res: import('playwright-core').Response) => {
    const type = res.headers()['content-type'] ?? '';
    const kind = res.url().includes('/app/description-') ? 'description' : type.includes('javascript') ? 'js' : type.includes('css') ? 'css' : type.includes('html') ? 'html' : null;
    if (!kind) return;
    bodies.push(
      res.body().then(
        (b) => {
          out.bytes[kind].raw += b.length;
          out.bytes[kind].gzip += gzipSync(b, { level: 6 }).length;
        },
        () => {},
      ),
    );
  };
  page.on('response', onPageResponse);
  const start = Date.now();
  await page.goto(`${server.url}${path}`);
  await page.locator('main tbody th a').first().waitFor();
  out.ms = Date.now() - start;
  await page.waitForLoadState('networkidle');
  await Promise.all(bodies);
  page.off('response', onPageResponse);
  cdp.off('Network.requestWillBeSent', onSent);
  cdp.off('Network.requestServedFromCache', onCached);
  cdp.off('Network.responseReceived', onResponse);
  for (const r of seen.values()) {
    if (r.url.startsWith('data:')) continue;
    out.requests++;
    if (new URL(r.url).pathname.startsWith('/api/')) out.apiRequests++;
    if (!r.cached) out.network.push(new URL(r.url).pathname);
  }
  return out;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const p95 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.ceil(xs.length * 0.95) - 1)]!;
const kib = (n: number) => `${(n / 1024).toFixed(1)} KiB`;

try {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, locale: 'en-US' });
  // tsx keeps functions' names with a helper the page does not have.
  await context.addInitScript('globalThis.__name = (f) => f;');
  const page = await context.newPage();
  await page.goto(`${server.url}/login?next=/app/invoices`);
  await page.getByLabel('Email').fill(EMAIL);
  await page.getByLabel('Password').fill('bench-password');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL(`${server.url}/app/invoices`);
  await page.locator('main tbody th a').first().waitFor();
  const cdp = await context.newCDPSession(page);
  await cdp.send('Network.enable');

  // /app/clients (200 clients; the page of the budget), then /app/invoices (20,000 invoices; its
  // client filter reads its choices: one more /api request).
  for (const path of ['/app/clients', '/app/invoices']) {
    for (const cold of [true, false]) {
      await cdp.send('Network.setCacheDisabled', { cacheDisabled: cold });
      if (!cold) await load(page, cdp, path); // fills the cache
      const all: Load[] = [];
      for (let i = 0; i < runs; i++) all.push(await load(page, cdp, path));
      const r = all.at(-1)!;
      const b = r.bytes;
      log(`${path}, ${cold ? 'cold' : 'warm'}: ${r.requests} requests (${r.apiRequests} to /api), ${r.network.length} to the network${cold ? '' : ` (${r.network.join(', ')})`}`);
      log(`   HTML ${kib(b.html.raw)} (gzip ${kib(b.html.gzip)}), JavaScript ${kib(b.js.raw)} (gzip ${kib(b.js.gzip)}) and the description ${kib(b.description.raw)} (gzip ${kib(b.description.gzip)}), CSS ${kib(b.css.raw)} (gzip ${kib(b.css.gzip)})${cold ? '' : ' — bodies read from the cache'}`);
      log(`   time to the list's first row: median ${median(all.map((x) => x.ms))} ms (min ${Math.min(...all.map((x) => x.ms))}, max ${Math.max(...all.map((x) => x.ms))}) over ${runs} runs`);
    }
  }

  // ---- the editor: 100 lines ----
  await cdp.send('Network.setCacheDisabled', { cacheDisabled: false });
  await page.goto(`${server.url}/app/invoices/new`);
  await page.getByRole('button', { name: 'Add line' }).waitFor();
  await page.evaluate(async () => {
    const add = [...document.querySelectorAll('button')].find((b) => b.textContent === 'Add line')!;
    for (let i = 0; i < 100; i++) {
      add.click();
      await new Promise((r) => setTimeout(r, 0));
    }
  });
  await page.getByLabel('Price, line 100').waitFor();
  // Every line gets a description, a quantity and a price, typed as a person would (input events).
  await page.evaluate(async () => {
    const type = (el: HTMLInputElement, v: string) => {
      el.value = v;
      el.dispatchEvent(new Event('input', { bubbles: true }));
    };
    for (let i = 1; i <= 100; i++) {
      type(document.querySelector<HTMLInputElement>(`[aria-label="Description, line ${i}"], #lines-${i - 1}-description`)!, `Item ${i}`);
      type(document.querySelector<HTMLInputElement>(`#lines-${i - 1}-qty`)!, String(1 + (i % 7)));
      type(document.querySelector<HTMLInputElement>(`#lines-${i - 1}-price`)!, `${(i * 37) % 900},${String(i % 100).padStart(2, '0')}`);
      await new Promise((r) => setTimeout(r, 0));
    }
  });
  const timings = await page.evaluate(async () => {
    const main = document.querySelector<HTMLScriptElement>('script[type=module][src$="/app/main.js"]')!.src;
    const at = (p: string) => main.replace(/main\.js$/, p);
    const { computeTotals } = await import(at('rules/totals.js'));
    const { totalsOf } = await import(at('views/totals.js'));
    const { indexDescription } = await import(at('lib.js'));
    const descUrl = document.querySelector<HTMLLinkElement>('link[rel=modulepreload][href*="/app/description-"]')!.href;
    const desc = indexDescription((await import(descUrl)).default);
    const r = desc.get('Invoice');
    const ctx = { desc, locale: 'en-US' };
    // What the form holds: the inputs as typed (strings), 100 lines over four taxes, two of them inclusive.
    const taxes = new Map([
      ['t1', { rate: 20, type: 'exclusive' }],
      ['t2', { rate: 5.5, type: 'exclusive' }],
      ['t3', { rate: 10, type: 'inclusive' }],
      ['t4', { rate: 8.875, type: 'inclusive' }],
    ]);
    const values: Record<string, unknown> = { discountType: 'percentage', discountValue: '7,5', lines: [] };
    const rule: { price: number; qty: number; tax: { rate: number; type: string } }[] = [];
    for (let i = 1; i <= 100; i++) {
      (values.lines as unknown[]).push({ description: `Item ${i}`, qty: String(1 + (i % 7)), price: `${(i * 37) % 900},${String(i % 100).padStart(2, '0')}`, tax: `t${1 + (i % 4)}` });
      rule.push({ price: ((i * 37) % 900) * 100 + (i % 100), qty: 1 + (i % 7), tax: taxes.get(`t${1 + (i % 4)}`)! });
    }
    const time = (fn: () => unknown, n: number) => {
      for (let i = 0; i < 20; i++) fn(); // warm-up (JIT)
      const out: number[] = [];
      for (let i = 0; i < n; i++) {
        const t0 = performance.now();
        fn();
        out.push(performance.now() - t0);
      }
      return out;
    };
    const ruleMs = time(() => computeTotals(rule, { type: 'percentage', value: 7.5 }), 300);
    const formMs = time(() => totalsOf(ctx, r, values, 'USD', taxes), 300);
    // One price typed into the form of 100 lines, until the page shows the new grand total.
    const price = document.querySelector<HTMLInputElement>('#lines-0-price')!;
    const total = () => document.querySelector('[data-testid="preview-total"]')?.textContent ?? '';
    const tick = () => new Promise<void>((res) => {
      const c = new MessageChannel();
      c.port1.onmessage = () => res();
      c.port2.postMessage(0);
    });
    const typed: number[] = [];
    let misses = 0;
    for (let i = 0; i < 60; i++) {
      const before = total();
      const t0 = performance.now();
      price.value = `${100 + i},${String(i).padStart(2, '0')}`;
      price.dispatchEvent(new Event('input', { bubbles: true }));
      for (let k = 0; k < 50 && total() === before; k++) await tick();
      typed.push(performance.now() - t0);
      if (total() === before) misses++;
      await new Promise((res) => requestAnimationFrame(() => res(null)));
    }
    // The same, with Preact rendering at once (not in a microtask): the input event's handler,
    // the recompute and the render, with no wait for the event loop in the figure.
    const { options } = await import('preact');
    const debounce = options.debounceRendering;
    options.debounceRendering = (cb: () => void) => cb();
    const sync: number[] = [];
    for (let i = 0; i < 60; i++) {
      const before = total();
      const t0 = performance.now();
      price.value = `${200 + i},${String(i).padStart(2, '0')}`;
      price.dispatchEvent(new Event('input', { bubbles: true }));
      sync.push(performance.now() - t0);
      if (total() === before) misses++;
      await new Promise((res) => requestAnimationFrame(() => res(null)));
    }
    options.debounceRendering = debounce;
    return { ruleMs, formMs, typed: typed.slice(10), sync: sync.slice(10), misses };
  });
  const fmt = (xs: number[]) => `median ${median(xs).toFixed(2)} ms, p95 ${p95(xs).toFixed(2)} ms (n = ${xs.length})`;
  log('editor, 100 lines:');
  log(`   the rule (computeTotals): ${fmt(timings.ruleMs)}`);
  log(`   the form's recompute (totalsOf: 100 lines' inputs read, then the rule): ${fmt(timings.formMs)}`);
  log(`   a price typed until the new total is in the page (render included): ${fmt(timings.typed)}${timings.misses ? ` — ${timings.misses} without a change seen` : ''}`);
  log(`   the same, rendered at once (the handler, the recompute and the render in the input event's task): ${fmt(timings.sync)}`);
} finally {
  await browser.close();
  await server.stop();
  if (!args.keep) await db.drop();
}

// Hand-picked hostile input for the REST API: never a 5xx, always problem+json, nothing written.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, client, startTestServer, tokenFor, type Client, type TestServer } from './helpers.ts';

let t: TestServer;
let api: Client;
let clientIri: string;

beforeAll(async () => {
  t = await startTestServer({ RATE_LIMIT_MAX: '1000000' });
  api = client(t, await tokenFor(t, { email: 'h@h.test', company: 'H' }));
  clientIri = (await api.post('/api/clients', { name: 'Target' })).body['@id'];
});
afterAll(() => t.close());

async function counts(): Promise<number[]> {
  const out: number[] = [];
  for (const p of ['/api/clients', '/api/contacts', '/api/invoices', '/api/taxes']) out.push((await api.get(p)).body.totalItems);
  return out;
}

function expectClientError(res: { status: number; headers: Headers; text: string }, label: string) {
  expect(res.status, `${label}: ${res.text.slice(0, 200)}`).toBeGreaterThanOrEqual(400);
  expect(res.status, label).toBeLessThan(500);
  expect(res.headers.get('content-type'), label).toMatch(/application\/problem\+json/);
  expect(res.text, label).not.toMatch(/at .*\.ts:\d+|stack|SELECT|select .* from/i);
}

describe('hostile bodies', () => {
  const bodies: [string, string][] = [
    ['__proto__ key', '{"name":"p","__proto__":{"admin":true}}'],
    ['constructor.prototype', '{"name":"p","constructor":{"prototype":{"x":1}}}'],
    ['NUL in a string', '{"name":"a\\u0000b"}'],
    ['lone surrogate', '{"name":"\\ud800"}'],
    ['huge string', JSON.stringify({ name: 'x'.repeat(200_000) })],
    ['deep nesting', `{"name":${'['.repeat(5000)}${']'.repeat(5000)}}`],
    ['object for a string', '{"name":{"$gt":""}}'],
    ['infinite number', '{"name":"n","notes":1e400}'],
    ['number as name', '{"name":1e400}'],
    ['array body', '[{"name":"a"}]'],
    ['string body', '"name"'],
    ['null body', 'null'],
    ['truncated', '{"name":"a"'],
    ['trailing garbage', '{"name":"a"} x'],
    ['SQL in a value', `{"name":"x'); drop table clients; --","website":"javascript:alert(1)"}`],
  ];
  it.each(bodies)('%s', async (label, raw) => {
    const before = await counts();
    const res = await call(t, 'POST', '/api/clients', { token: api.token, rawBody: raw, contentType: 'application/json' });
    if (label === 'lone surrogate') {
      expect(res.status, label).toBeLessThan(500);
      return;
    }
    expectClientError(res, label);
    expect(await counts(), label).toEqual(before);
  });

  it('refuses a reference given as an object that does not convert to text (toString not a function) with a 422', async () => {
    const raw = '{"client":{"toString":true,"valueOf":1},"street1":"x"}';
    const res = await call(t, 'POST', '/api/addresses', { token: api.token, rawBody: raw, contentType: 'application/json' });
    expect(res.status, res.text).toBe(422);
    expect(res.body.violations[0].propertyPath).toBe('client');
  });

  it('stores a lone surrogate inside a JSON field as U+FFFD rather than failing (found by test/hostile-fuzz, seed 1411885432, on PATCH /api/company)', async () => {
    const raw = '{"emailTemplates":{"quote":{"subject":"s\\udc00","body":"x\\ud800y"}}}';
    const res = await call(t, 'PATCH', '/api/company', { token: api.token, rawBody: raw, contentType: 'application/merge-patch+json' });
    expect(res.status, res.text).toBe(200);
    expect(res.body.emailTemplates.quote).toEqual({ subject: 's\ufffd', body: 'x\ufffdy' });
    // A list stored as JSON (a recurring invoice's lines) takes the same rule.
    const lines = `{"client":"${clientIri}","frequency":"monthly","startDate":"2026-01-01","lines":[{"description":"a\\ud800","price":100,"qty":1}]}`;
    const made = await call(t, 'POST', '/api/recurring-invoices', { token: api.token, rawBody: lines, contentType: 'application/json' });
    expect(made.status, made.text).toBe(201);
    expect(made.body.lines[0].description).toBe('a\ufffd');
  });

  it('refuses oversized numbers for money and decimals', async () => {
    const res = await api.post('/api/invoices', { client: clientIri, lines: [{ description: 'x', price: 2 ** 60, qty: 1e-9 }] });
    expectClientError(res, 'money');
    expect(res.body.violations.map((v: { propertyPath: string }) => v.propertyPath).sort()).toEqual(['lines[0].price', 'lines[0].qty']);
  });

  it('refuses an invalid RFC 3339 timestamp and impossible dates', async () => {
    for (const d of ['2026-02-29', '0000-01-01', '99999-01-01', '2026-1-1', "2026-01-01' or 1=1"]) {
      expectClientError(await api.post('/api/invoices', { client: clientIri, invoiceDate: d }), d);
    }
  });
});

describe('hostile URLs', () => {
  const urls = [
    '/api/clients?name=%00',
    `/api/clients?name=${'x'.repeat(5000)}`,
    '/api/clients?order[name]=asc;drop',
    '/api/clients?page=99999999999999999999',
    '/api/clients?itemsPerPage=-5',
    '/api/clients/%00',
    '/api/clients/%FF%FE',
    '/api/clients/..%2F..%2Fetc%2Fpasswd',
    '/api/invoices?invoiceDate[after]=2026-13-45',
    '/api/invoices?client[]=%27',
  ];
  it.each(urls)('%s', async (url) => {
    const res = await call(t, 'GET', url, { token: api.token });
    expect(res.status, url).toBeLessThan(500);
    if (res.status >= 400) expect(res.headers.get('content-type'), url).toMatch(/problem\+json/);
  });

  it('ignores unknown and malformed query parameters', async () => {
    const res = await api.get('/api/clients?foo=bar&name[x]=y&order=name&order[]=x&[]=1');
    expect(res.status).toBe(200);
  });
});

describe('hostile headers', () => {
  it('handles an absurd Accept header', async () => {
    const res = await call(t, 'GET', '/api/clients', { token: api.token, accept: `${'x/y;q=0.1,'.repeat(500)}` });
    expect(res.status).toBe(406);
  });
  it('handles a token header with control-like content', async () => {
    const res = await call(t, 'GET', '/api/clients', { token: `inv_${'\u00e9'.repeat(10)}` });
    expect(res.status).toBe(401);
  });
});

// ---- more hand-picked cases: every filter, raw bytes, parser-level errors, bodies over 1 MiB ----

import { connect } from 'node:net';
import { model } from '../server/model.ts';
import { dbState } from './support/db-state.ts';

const SQL_META = ["'", '"', ';--', '/*', '\\', '%_', "' OR '1'='1", "1; select pg_sleep(5)--", '$$', '\u0000', '::text)'];

/** Sends raw bytes on a socket and returns the status line, headers and body as text. */
function raw(bytes: Buffer): Promise<{ status: number; head: string; body: string }> {
  const { port, hostname } = new URL(t.url);
  return new Promise((resolve, reject) => {
    const s = connect(Number(port), hostname, () => s.end(bytes));
    const chunks: Buffer[] = [];
    s.on('data', (c) => chunks.push(c));
    s.on('error', reject);
    s.on('close', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const [head = '', body = ''] = text.split('\r\n\r\n');
      resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1] ?? 0), head, body });
    });
  });
}

describe('SQL metacharacters in every filter of every collection', () => {
  it('are values like any other: 200 or 400, never a 5xx, and nothing changes', async () => {
    const before = await dbState(t.db.database.db);
    for (const r of model.resources.filter((x) => x.rest.has('list'))) {
      for (const f of r.filters) {
        for (const v of SQL_META) {
          const e = encodeURIComponent(v);
          for (const q of [`${f.name}=${e}`, `${f.name}[]=${e}&${f.name}[]=x`, `${f.name}[after]=${e}`, `order[${f.name}]=${e}`]) {
            const res = await call(t, 'GET', `${r.iri}?${q}`, { token: api.token });
            expect(res.status, `${r.iri}?${q}: ${res.text.slice(0, 200)}`).toBeLessThan(500);
            if (res.status >= 400) {
              expect(res.headers.get('content-type'), q).toMatch(/application\/problem\+json/);
              // The detail may quote the value sent; nothing else of the query or the driver.
              expect(res.text.replaceAll(JSON.stringify(v).slice(1, -1), ''), q).not.toMatch(/at .*\.ts:\d+|stack|select .* from|syntax error at/i);
            }
          }
        }
      }
    }
    expect(await dbState(t.db.database.db)).toEqual(before);
  }, 120_000);
});

describe('date filters on timestamp fields (a 500 found by the tenancy matrix)', () => {
  it('filter payments by paidAt with every bound, days or instants', async () => {
    const inv = await api.post('/api/invoices', { client: clientIri, lines: [{ description: 'x', price: 1000 }] });
    await api.patch(inv.body['@id'], { status: 'pending' });
    for (const paidAt of ['2026-03-01T10:00:00Z', '2026-03-02T10:00:00Z']) expect((await api.post('/api/payments', { invoice: inv.body['@id'], amount: 1, paidAt })).status).toBe(201);
    const n = async (q: string) => (await api.get(`/api/payments?${q}`)).body.totalItems;
    expect(await n('paidAt[after]=2026-03-02')).toBe(1);
    expect(await n('paidAt[before]=2026-03-01')).toBe(1);
    expect(await n('paidAt[strictly_after]=2026-03-01')).toBe(1);
    expect(await n('paidAt[strictly_before]=2026-03-02')).toBe(1);
    expect(await n('paidAt[after]=2026-03-01T12:00:00Z')).toBe(1);
    expect(await n('paidAt[after]=2026-03-01&paidAt[before]=2026-03-02')).toBe(2);
    const gql = await call(t, 'POST', '/api/graphql', { token: api.token, contentType: 'application/json', body: { query: '{ payments(paidAt: [{after: "2026-03-02"}]) { totalCount } }' } });
    expect(gql.body).toEqual({ data: { payments: { totalCount: 1 } } });
  });
});

describe('null for a field that has a default (a 500 found by the fuzzer)', () => {
  it('means the default, on create, replace and update', async () => {
    const c = await api.post('/api/clients', { name: 'Nulls', status: null, currency: null });
    expect(c.status, c.text).toBe(201);
    expect(c.body).toMatchObject({ status: 'active', currency: 'USD' });
    const inv = await api.post('/api/invoices', { client: c.body['@id'], discountType: null, discountValue: null, invoiceDate: null, lines: [{ description: 'x', price: 5, qty: null }] });
    expect(inv.status, inv.text).toBe(201);
    expect(inv.body).toMatchObject({ discountType: 'none', discountValue: 0, status: 'draft' });
    expect(inv.body.lines[0].qty).toBe(1);
    const patched = await api.patch(inv.body['@id'], { discountType: null });
    expect(patched.status, patched.text).toBe(200);
    expect(patched.body.discountType).toBe('none');
  });
});

describe('raw bytes and broken HTTP', () => {
  it('invalid UTF-8 in a JSON body is a 400 and writes nothing', async () => {
    const before = await dbState(t.db.database.db);
    for (const bad of [Buffer.from([0x7b, 0x22, 0x6e, 0x61, 0x6d, 0x65, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d]), Buffer.from('{"name":"\xc3\x28"}', 'latin1'), Buffer.from([0xef, 0xbb, 0xbf, 0x7b, 0x7d])]) {
      const res = await fetch(`${t.url}/api/clients`, { method: 'POST', headers: { 'x-api-token': api.token, 'content-type': 'application/json' }, body: bad });
      const text = await res.text();
      expect(res.status, text).toBeLessThan(500);
      if (res.status >= 400) expect(res.headers.get('content-type')).toMatch(/problem\+json/);
    }
    // A name made of U+FFFD (what invalid bytes decode to) may be stored; nothing else is.
    const after = await dbState(t.db.database.db);
    expect(after.invoices).toEqual(before.invoices);
  });

  it('invalid UTF-8 and control bytes in the request line are answered with problem+json', async () => {
    for (const path of ['/api/clients/\xff\xfe', '/api/clients?name=\xc3\x28', '/api/cli\x01ents', '/api/clients/%ZZ', `/api/${'%'.repeat(3)}`]) {
      const res = await raw(Buffer.from(`GET ${path} HTTP/1.1\r\nHost: x\r\nX-API-TOKEN: ${api.token}\r\nConnection: close\r\n\r\n`, 'latin1'));
      expect(res.status, `${JSON.stringify(path)}: ${res.head}`).toBeGreaterThanOrEqual(400);
      expect(res.status).toBeLessThan(500);
      expect(res.head.toLowerCase(), path).toContain('content-type: application/problem+json');
    }
  });

  it('headers too large: 431 problem+json; a malformed request: 400 problem+json', async () => {
    const big = await raw(Buffer.from(`GET /api/clients HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(100_000)}\r\n\r\n`));
    expect(big.status).toBe(431);
    expect(big.head.toLowerCase()).toContain('content-type: application/problem+json');
    expect(JSON.parse(big.body)).toMatchObject({ status: 431, type: '/errors/431' });
    const broken = await raw(Buffer.from('NOT HTTP AT ALL\r\n\r\n'));
    expect(broken.status).toBe(400);
    expect(JSON.parse(broken.body)).toMatchObject({ status: 400 });
  });
});

describe('bodies over 1 MiB', () => {
  const big = 'x'.repeat(1024 * 1024 + 1);
  it('are a 413 problem+json on POST, PUT and PATCH in every body type, and write nothing', async () => {
    const before = await dbState(t.db.database.db);
    const cases: [string, string, string][] = [
      ['POST', '/api/clients', 'application/json'],
      ['POST', '/api/clients', 'application/ld+json'],
      ['POST', '/api/clients', 'application/vnd.api+json'],
      ['PUT', clientIri, 'application/json'],
      ['PATCH', clientIri, 'application/merge-patch+json'],
      ['POST', '/api/api-tokens', 'application/json'],
    ];
    for (const [method, path, type] of cases) {
      const res = await call(t, method, path, { token: api.token, rawBody: JSON.stringify({ name: 'big', notes: big }), contentType: type });
      expect(res.status, `${method} ${path} ${type}`).toBe(413);
      expect(res.headers.get('content-type')).toMatch(/problem\+json/);
    }
    expect(await dbState(t.db.database.db)).toEqual(before);
  });

  it('are a 413 when sent chunked, without a Content-Length', async () => {
    const chunks = Array.from({ length: 20 }, () => 'y'.repeat(64 * 1024));
    const body = `{"name":"chunked","notes":"${chunks.join('')}"}`;
    const res = await raw(Buffer.from(`POST /api/clients HTTP/1.1\r\nHost: x\r\nX-API-TOKEN: ${api.token}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n${Buffer.byteLength(body).toString(16)}\r\n${body}\r\n0\r\n\r\n`));
    expect(res.status).toBe(413);
  });
});

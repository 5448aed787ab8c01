// Hand-picked hostile input for the REST API: never a 5xx, always problem+json, nothing written.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, client, startTestServer, tokenFor, type Client, type TestServer } from './helpers.ts';

let t: TestServer;
let api: Client;
let clientIri: string;

beforeAll(async () => {
  t = await startTestServer();
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

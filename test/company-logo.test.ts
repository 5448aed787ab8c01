// The company's logo (CONTRACT §20): PUT a PNG or JPEG of at most 1 MB (admins), GET it (any
// role; 404 without one), DELETE it. Whatever is not such an image — another type, an SVG with
// script, bytes that do not decode, a PNG whose header claims a huge bitmap, a larger body — is
// refused (422 or 413) and nothing is stored. The logo is drawn on the PDF (pdfimages lists it,
// pdftoppm renders the page: written to test-results/ to be looked at).
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { deflateSync } from 'node:zlib';
import { PNG } from 'pngjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, startTestServer, tokenFor, type Client, type TestServer } from './helpers.ts';

let t: TestServer;
let admin: Client;
let viewer: Client;
let other: Client;

/** A PNG of `w` × `h`: the left half blue, the right half amber. */
function png(w = 120, h = 40): Buffer {
  const img = new PNG({ width: w, height: h });
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const i = (y * w + x) * 4;
      const [r, g, b] = x < w / 2 ? [0x1d, 0x4e, 0xd8] : [0xf5, 0x9e, 0x0b];
      img.data[i] = r;
      img.data[i + 1] = g;
      img.data[i + 2] = b;
      img.data[i + 3] = 255;
    }
  }
  return PNG.sync.write(img);
}

/** A PNG whose IHDR claims `w` × `h` (valid CRCs) with a tiny compressed body: a decompression bomb's header. */
function claimedPng(w: number, h: number): Buffer {
  const crcTable = Array.from({ length: 256 }, (_, n) => {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    return c >>> 0;
  });
  const crc = (b: Buffer) => {
    let c = 0xffffffff;
    for (const x of b) c = crcTable[(c ^ x) & 0xff]! ^ (c >>> 8);
    return (c ^ 0xffffffff) >>> 0;
  };
  const chunk = (type: string, data: Buffer) => {
    const len = Buffer.alloc(4);
    len.writeUInt32BE(data.length);
    const td = Buffer.concat([Buffer.from(type, 'ascii'), data]);
    const c = Buffer.alloc(4);
    c.writeUInt32BE(crc(td));
    return Buffer.concat([len, td, c]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(w, 0);
  ihdr.writeUInt32BE(h, 4);
  ihdr[8] = 8;
  ihdr[9] = 6;
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk('IHDR', ihdr), chunk('IDAT', deflateSync(Buffer.alloc(1000))), chunk('IEND', Buffer.alloc(0))]);
}

async function put(c: Client, body: Buffer | string, type: string) {
  const res = await fetch(`${t.url}/api/company/logo`, { method: 'PUT', headers: { 'x-api-token': c.token, 'content-type': type }, body: typeof body === 'string' ? body : new Uint8Array(body) });
  const text = await res.text();
  return { status: res.status, headers: res.headers, text, body: /json/.test(res.headers.get('content-type') ?? '') && text ? JSON.parse(text) : undefined };
}
const getLogo = (c: Client) => fetch(`${t.url}/api/company/logo`, { headers: { 'x-api-token': c.token } });

beforeAll(async () => {
  t = await startTestServer();
  admin = client(t, await tokenFor(t, { email: 'admin@logo.test', company: 'Logo Co', currency: 'EUR' }));
  viewer = client(t, await tokenFor(t, { email: 'viewer@logo.test', company: 'Logo Co', role: 'viewer' }));
  other = client(t, await tokenFor(t, { email: 'o@other-logo.test', company: 'Other Logo' }));
});
afterAll(() => t.close());

describe('the logo', () => {
  const logo = png();

  it('is none at first (404); an admin puts a PNG, every role gets it back byte for byte', async () => {
    expect((await getLogo(admin)).status).toBe(404);
    const r = await put(admin, logo, 'image/png');
    expect(r.status, r.text).toBe(204);
    for (const c of [admin, viewer]) {
      const g = await getLogo(c);
      expect(g.status).toBe(200);
      expect(g.headers.get('content-type')).toBe('image/png');
      expect(Buffer.from(await g.arrayBuffer()).equals(logo)).toBe(true);
    }
    expect((await getLogo(other)).status).toBe(404);
    expect((await put(viewer, logo, 'image/png')).status).toBe(403);
  });

  it('refuses what is not a PNG or JPEG of at most 1 MB, and keeps the one it has', async () => {
    const svg = '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><script>alert(1)</script><rect width="10" height="10"/></svg>';
    const broken = Buffer.from(logo);
    broken[broken.length - 20] = broken[broken.length - 20]! ^ 0xff; // inside the image data: a CRC that no longer matches
    const cases: [Buffer | string, string, number][] = [
      [svg, 'image/svg+xml', 422],
      [svg, 'image/png', 422],
      ['hello', 'text/plain', 422],
      [JSON.stringify({ logo: 'x' }), 'application/json', 422],
      [logo.subarray(0, 40), 'image/png', 422],
      [broken, 'image/png', 422],
      [logo, 'image/jpeg', 422],
      [Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 0x10]), 'image/jpeg', 422],
      [claimedPng(30_000, 30_000), 'image/png', 422],
      [Buffer.alloc(0), 'image/png', 422],
      [Buffer.concat([logo, Buffer.alloc(1024 * 1024)]), 'image/png', 413],
    ];
    for (const [body, type, status] of cases) {
      const r = await put(admin, body, type);
      expect(r.status, `${type} ${body.length}: ${r.text}`).toBe(status);
      expect(r.headers.get('content-type')).toMatch(/problem\+json/);
      if (status === 422) expect(r.body.violations[0].propertyPath).toBe('logo');
    }
    // No Content-Type, a parameter on it, or a body streamed past the limit: refused, never a 500.
    const bare = await fetch(`${t.url}/api/company/logo`, { method: 'PUT', headers: { 'x-api-token': admin.token }, body: new Uint8Array(logo) });
    expect([415, 422]).toContain(bare.status);
    expect((await put(admin, logo.subarray(0, 60), 'image/png; charset=binary')).status).toBe(422);
    const stream = new ReadableStream({ start(c) { for (let i = 0; i < 20; i++) c.enqueue(new Uint8Array(100_000)); c.close(); } });
    const big = await fetch(`${t.url}/api/company/logo`, { method: 'PUT', headers: { 'x-api-token': admin.token, 'content-type': 'image/png' }, body: stream, duplex: 'half' } as RequestInit);
    expect(big.status).toBe(413);
    const g = await getLogo(admin);
    expect(Buffer.from(await g.arrayBuffer()).equals(logo)).toBe(true);
  });

  it('is drawn on the PDF (rendered to test-results/logo-invoice.png), then a JPEG replaces it, then DELETE removes it', async () => {
    const cl = await admin.post('/api/clients', { name: 'Buyer' });
    const inv = await admin.post('/api/invoices', { client: cl.body['@id'], lines: [{ description: 'Work', price: 10_000 }] });
    const pdf = await fetch(`${t.url}/api/invoices/${inv.body.id}`, { headers: { 'x-api-token': admin.token, accept: 'application/pdf' } });
    expect(pdf.status).toBe(200);
    const dir = mkdtempSync(join(tmpdir(), 'logo-'));
    const file = join(dir, 'invoice.pdf');
    writeFileSync(file, Buffer.from(await pdf.arrayBuffer()));
    const images = execFileSync('pdfimages', ['-list', file], { encoding: 'utf8' });
    expect(images).toMatch(/\b120\s+40\b/);
    execFileSync('pdftoppm', ['-png', '-r', '60', '-singlefile', file, join(dir, 'page')]);
    mkdirSync('test-results', { recursive: true });
    writeFileSync('test-results/logo-invoice.png', readFileSync(join(dir, 'page.png')));
    // The page has the logo's blue and amber at its top left.
    const page = PNG.sync.read(readFileSync(join(dir, 'page.png')));
    const at = (x: number, y: number) => [...page.data.subarray((y * page.width + x) * 4, (y * page.width + x) * 4 + 3)];
    const near = (a: number[], b: number[]) => a.every((v, i) => Math.abs(v - b[i]!) < 40);
    const scale = 60 / 72;
    expect(near(at(Math.round((50 + 30) * scale), Math.round((50 + 20) * scale)), [0x1d, 0x4e, 0xd8])).toBe(true);
    expect(near(at(Math.round((50 + 130) * scale), Math.round((50 + 20) * scale)), [0xf5, 0x9e, 0x0b])).toBe(true);

    // A JPEG, made by pdftoppm from that page.
    execFileSync('pdftoppm', ['-jpeg', '-r', '20', '-singlefile', file, join(dir, 'small')]);
    const jpeg = readFileSync(join(dir, 'small.jpg'));
    const r = await put(admin, jpeg, 'image/jpeg');
    expect(r.status, r.text).toBe(204);
    const g = await getLogo(viewer);
    expect(g.headers.get('content-type')).toBe('image/jpeg');
    expect(Buffer.from(await g.arrayBuffer()).equals(jpeg)).toBe(true);
    expect((await fetch(`${t.url}/api/invoices/${inv.body.id}`, { headers: { 'x-api-token': admin.token, accept: 'application/pdf' } })).status).toBe(200);

    expect((await admin.delete('/api/company/logo')).status).toBe(204);
    expect((await getLogo(admin)).status).toBe(404);
    expect((await admin.delete('/api/company/logo')).status).toBe(404);
    expect((await viewer.delete('/api/company/logo')).status).toBe(403);
  });

  it('is shown on the client page by its own request, not inside the page', async () => {
    expect((await put(admin, logo, 'image/png')).status).toBe(204);
    const cl = await admin.post('/api/clients', { name: 'Reader' });
    const inv = await admin.post('/api/invoices', { client: cl.body['@id'], status: 'pending', lines: [{ description: 'Work', price: 10_000 }] });
    expect(inv.status, inv.text).toBe(201);
    const link = await admin.post('/api/document-links', { document: inv.body['@id'] });
    expect(link.status, link.text).toBe(201);
    const path = new URL(link.body.url as string).pathname;
    const page = await (await fetch(t.url + path)).text();
    expect(page).toContain(`src="${path}/logo"`);
    expect(page).not.toContain('data:image/');
    const img = await fetch(`${t.url}${path}/logo`);
    expect(img.status).toBe(200);
    expect(img.headers.get('content-type')).toBe('image/png');
    expect(img.headers.get('cache-control')).toBe('private, max-age=3600');
    expect(Buffer.from(await img.arrayBuffer()).equals(logo)).toBe(true);
    // A link that does not exist shows nothing of the company.
    expect((await fetch(`${t.url}/d/${'x'.repeat(32)}/logo`)).status).toBe(404);
    expect((await admin.delete('/api/company/logo')).status).toBe(204);
  });

  it('stays on an issued document as it was issued: a new logo, or none, changes only drafts (CONTRACT §18)', async () => {
    expect((await put(admin, png(120, 40), 'image/png')).status).toBe(204);
    const cl = await admin.post('/api/clients', { name: 'Keeper' });
    const issued = await admin.post('/api/invoices', { client: cl.body['@id'], status: 'pending', lines: [{ description: 'Work', price: 10_000 }] });
    const bare = await admin.post('/api/invoices', { client: cl.body['@id'], lines: [{ description: 'Work', price: 10_000 }] });
    const pdf = async (id: string) => Buffer.from(await (await fetch(`${t.url}/api/invoices/${id}`, { headers: { 'x-api-token': admin.token, accept: 'application/pdf' } })).arrayBuffer());
    const before = await pdf(issued.body.id);
    const draftBefore = await pdf(bare.body.id);
    const link = await admin.post('/api/document-links', { document: issued.body['@id'] });
    const path = new URL(link.body.url as string).pathname;

    expect((await put(admin, png(60, 60), 'image/png')).status).toBe(204);
    expect((await pdf(issued.body.id)).equals(before)).toBe(true);
    expect((await pdf(bare.body.id)).equals(draftBefore)).toBe(false);
    expect(Buffer.from(await (await fetch(`${t.url}${path}/logo`)).arrayBuffer()).equals(png(120, 40))).toBe(true);
    expect((await admin.delete('/api/company/logo')).status).toBe(204);
    expect((await pdf(issued.body.id)).equals(before)).toBe(true);
    expect((await fetch(`${t.url}${path}/logo`)).status).toBe(200);
    // Issued with no logo: none, whatever comes after.
    const plain = await admin.post('/api/invoices', { client: cl.body['@id'], status: 'pending', lines: [{ description: 'Work', price: 10_000 }] });
    const none = await pdf(plain.body.id);
    expect((await put(admin, png(120, 40), 'image/png')).status).toBe(204);
    expect((await pdf(plain.body.id)).equals(none)).toBe(true);
    // One kept copy per logo, however many documents were issued with it.
    const kept = await t.db.database.raw('select count(*)::int as n from kept_logos', []);
    expect(Number(kept[0]!.n)).toBe(1);
  });

  it('is described in the OpenAPI document', async () => {
    const doc = (await admin.get('/api/docs.json', { accept: 'application/json' })).body;
    const path = doc.paths['/api/company/logo'];
    expect(Object.keys(path).sort()).toEqual(['delete', 'get', 'put']);
    expect(Object.keys(path.put.requestBody.content).sort()).toEqual(['image/jpeg', 'image/png']);
    expect(Object.keys(path.put.responses)).toEqual(expect.arrayContaining(['204', '413', '422']));
    expect(Object.keys(path.get.responses['200'].content).sort()).toEqual(['image/jpeg', 'image/png']);
  });
});

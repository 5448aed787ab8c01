// The PDF of an invoice or a quote (CONTRACT §13), drawn in-process with PDFKit: A4, the seller
// (company profile) and the buyer, number and dates, the lines, one row per tax rate, the totals,
// payment details, terms, notes and the footer on every page with the page number. Text is real
// text in DejaVu Sans (Latin, Greek, Cyrillic), embedded as a subset; the fonts ship with the
// service (server/assets.ts, so the single executable carries them too). The same record gives
// the same bytes: no creation date, and the file identifier derives from the document.
import { createHash } from 'node:crypto';
import * as fontkit from 'fontkit';
import type { Font } from 'fontkit';
import PDFDocument from 'pdfkit';
import { readAsset } from '../assets.ts';
import type { DocumentData } from './data.ts';
import { addressLines, amountIn, groupIban, humanDate, messagesOf, moneyIn, taxLabel, totalRows, vatNoteLines } from './labels.ts';
import { epcMatrix, epcPayload, epcPossible } from './epc.ts';
import { makeFacturX, PDFA_OPTIONS } from './facturx.ts';
import { plainDecimal } from './money.ts';

export { taxLabel } from './labels.ts';

const FONT_FILES = { regular: 'ttf/DejaVuSans.ttf', bold: 'ttf/DejaVuSans-Bold.ttf' } as const;
type FontName = keyof typeof FONT_FILES;

/**
 * The fonts, parsed once, and what every document can share instead of redoing it: PDFKit's
 * cache of shaped words (per font; words repeat from one document to the next), and each
 * glyph's decoded outline, which fontkit decodes again for every subset it embeds.
 */
let fonts: Record<FontName, Font> | undefined;
let layouts: Record<FontName, Record<string, unknown>> | undefined;
let shapedWords = 0;
let rendered = 0;
const MAX_SHAPED_WORDS = 50_000;

function loadFonts(): Record<FontName, Font> {
  if (fonts) return fonts;
  fonts = { regular: fontkit.create(readAsset('fonts', FONT_FILES.regular)) as Font, bold: fontkit.create(readAsset('fonts', FONT_FILES.bold)) as Font };
  const glyph = Object.getPrototypeOf(fonts.regular.getGlyph(0)) as { _decode?: (this: { decoded?: unknown }) => unknown };
  const decode = glyph._decode;
  // Glyph objects are cached per font and their decoded outline is only read: decode each once.
  if (typeof decode === 'function') glyph._decode = function () { return (this.decoded ??= decode.call(this)); };
  // fontkit keeps a glyph object per id with the characters of its first use; a glyph first met
  // without any (as a compound glyph's component, while a subset is embedded) would then lose its
  // characters for the process's later documents, and PDFKit writes a glyph's characters into the
  // text a reader copies (ToUnicode): give the glyph the characters of a use that has them.
  for (const font of [fonts.regular, fonts.bold]) {
    const getGlyph = font.getGlyph.bind(font);
    (font as { getGlyph: typeof font.getGlyph }).getGlyph = (id: number, characters?: number[]) => {
      const g = getGlyph(id, characters) as { codePoints?: number[] };
      if (characters?.length && !g.codePoints?.length) g.codePoints = characters;
      return g as ReturnType<typeof getGlyph>;
    };
  }
  return fonts;
}

function layoutCaches(): Record<FontName, Record<string, unknown>> {
  // Bounded: the words of the documents are the users' text.
  if (!layouts || shapedWords > MAX_SHAPED_WORDS) {
    layouts = { regular: Object.create(null), bold: Object.create(null) };
    shapedWords = 0;
  }
  return layouts;
}

const INK = '#1b1f24';
const MUTED = '#5b6470';
const RULE = '#dfe3e8';
const ACCENT = '#4338ca';
const SHADE = '#f3f4f8';

const MARGIN = 50;
const FOOTER_SPACE = 36;

/**
 * The PDF of `d`; with `facturX`, the Factur-X hybrid (facturx.ts): PDF/A-3b embedding that CII
 * document as `factur-x.xml`.
 */
export function renderPdf(d: DocumentData, facturX?: { cii: string }): Promise<Buffer> {
  const f = loadFonts();
  // Every word in the company's language (messages.ts); amounts exact, with its separators.
  const m = messagesOf(d);
  const title = m.t(d.kind);
  const amount = (v: number) => amountIn(m, v, d.currency);
  const seller = d.seller;
  const doc = new PDFDocument({
    size: 'A4',
    margin: MARGIN,
    bufferPages: true,
    // No standard font: PDFKit would read its AFM files from disk, which the binary has not.
    font: null as unknown as string,
    info: { Title: `${title} ${d.number}`, Author: String(seller.legalName ?? seller.name), Creator: 'Invoicing', Producer: 'Invoicing', CreationDate: new Date(0) },
    ...(facturX ? PDFA_OPTIONS : {}),
  });
  if (facturX) {
    // PDF/A-3b with the CII attached; its dates are the document's (facturx.ts).
    makeFacturX(doc, d, facturX.cii);
  } else {
    // No creation date in the file, and an identifier that depends on the document only.
    // (PDFKit also copies the date into XMP metadata, which a PDF 1.3 file does not carry: skipped.)
    delete (doc.info as { CreationDate?: Date }).CreationDate;
    (doc as unknown as { _addInfo(): void })._addInfo = () => {};
  }
  (doc as unknown as { _id: Buffer })._id = createHash('md5').update(`${d.kind}:${d.id}:${d.number}`).digest();

  const chunks: Buffer[] = [];
  const done = new Promise<Buffer>((resolve, reject) => {
    doc.on('data', (c: Buffer) => chunks.push(c));
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
  });

  const caches = layoutCaches();
  for (const name of ['bold', 'regular'] as const) {
    doc.registerFont(name, f[name] as never);
    doc.font(name);
    (doc as unknown as { _font: { layoutCache: Record<string, unknown> } })._font.layoutCache = caches[name];
  }
  const W = doc.page.width;
  const H = doc.page.height;
  const left = MARGIN;
  const right = W - MARGIN;
  const width = right - left;
  const bottom = () => H - MARGIN - FOOTER_SPACE;

  const text = (s: string, x: number, y: number, o: PDFKit.Mixins.TextOptions & { font?: 'regular' | 'bold'; size?: number; color?: string } = {}) => {
    doc.font(o.font ?? 'regular').fontSize(o.size ?? 9).fillColor(o.color ?? INK);
    doc.text(s, x, y, { lineBreak: o.width !== undefined, ...o });
    return doc.y;
  };
  const heightOf = (s: string, w: number, font: 'regular' | 'bold' = 'regular', size = 9) => doc.font(font).fontSize(size).heightOfString(s, { width: w });

  // ---- header: seller on the left, title, number and dates on the right -------------------
  let y = MARGIN;
  const sellerName = String(seller.legalName ?? seller.name);
  const colW = width * 0.55;
  // The logo above the seller's name, within 160 × 56 points, its proportions kept.
  if (d.logo) {
    const img = (doc as unknown as { openImage(src: Buffer): { width: number; height: number } }).openImage(d.logo.body);
    const scale = Math.min(160 / img.width, 56 / img.height);
    doc.image(img as never, left, y, { width: img.width * scale, height: img.height * scale });
    y += img.height * scale + 10;
  }
  y = text(sellerName, left, y, { font: 'bold', size: 15, width: colW });
  const sellerLines = [
    ...addressLines(seller),
    ...[seller.email, seller.phone, seller.website].filter((v): v is string => typeof v === 'string' && v !== ''),
    ...(seller.vatNumber ? [m.t('vatNumber', { value: String(seller.vatNumber) })] : []),
    ...(seller.registrationNumber ? [m.t('registration', { value: String(seller.registrationNumber) })] : []),
  ];
  y += 4;
  for (const line of sellerLines) y = text(line, left, y, { color: MUTED, width: colW });
  const sellerBottom = y;

  let ry = MARGIN;
  ry = text(title.toLocaleUpperCase(m.locale), left, ry, { font: 'bold', size: 22, color: ACCENT, width, align: 'right', characterSpacing: 1 });
  ry += 6;
  const meta: [string, string][] = [
    [m.t(`${d.kind}Number`), d.number],
    [m.t(d.kind === 'invoice' ? 'invoiceDate' : 'date'), m.date(d.issueDate)],
    ...(d.dueDate ? [[m.t(d.kind === 'invoice' ? 'dueDate' : 'validUntil'), m.date(d.dueDate)] as [string, string]] : []),
    ...(d.invoiceNumber ? [[m.t('creditsInvoice'), d.invoiceNumber] as [string, string]] : []),
    // BT-10, as the e-invoice states it (a Leitweg-ID, a purchase order).
    ...(d.buyerReference && d.kind !== 'quote' ? [[m.t('yourReference'), d.buyerReference] as [string, string]] : []),
    [m.t('currency'), d.currency],
  ];
  const numberLabel = meta[0]![0];
  const labelX = right - 230;
  for (const [label, value] of meta) {
    text(label, labelX, ry, { color: MUTED, width: 100 });
    ry = text(value, labelX + 100, ry, { font: label === numberLabel ? 'bold' : 'regular', width: 130, align: 'right' }) + 2;
  }

  // ---- bill to ----------------------------------------------------------------------------
  y = Math.max(sellerBottom, ry) + 22;
  text(m.t(d.kind === 'quote' ? 'preparedFor' : 'billTo').toLocaleUpperCase(m.locale), left, y, { font: 'bold', size: 8, color: MUTED, characterSpacing: 0.6 });
  y += 13;
  y = text(d.buyer.name, left, y, { font: 'bold', size: 11, width: colW });
  const contact = d.buyer.contact;
  const buyerLines = [
    ...addressLines(d.buyer.address),
    ...(contact ? [[contact.firstName, contact.lastName].filter(Boolean).join(' '), String(contact.email ?? '')].filter(Boolean) : []),
    ...(d.buyer.vatNumber ? [m.t('vatNumber', { value: d.buyer.vatNumber })] : []),
  ];
  y += 2;
  for (const line of buyerLines) y = text(line, left, y, { color: MUTED, width: colW });

  // ---- lines --------------------------------------------------------------------------------
  const cols = [
    { key: 'description', label: m.t('description'), w: width - 50 - 80 - 62 - 95, align: 'left' as const },
    { key: 'qty', label: m.t('qty'), w: 50, align: 'right' as const },
    { key: 'price', label: m.t('unitPrice'), w: 80, align: 'right' as const },
    { key: 'tax', label: m.t('tax'), w: 62, align: 'right' as const },
    { key: 'total', label: m.t('amount', { currency: d.currency }), w: 95, align: 'right' as const },
  ];
  const PAD = 6;
  const tableHeader = (at: number) => {
    doc.rect(left, at, width, 20).fill(SHADE);
    let x = left;
    for (const c of cols) {
      text(c.label, x + PAD, at + 6, { font: 'bold', size: 8, color: MUTED, width: c.w - 2 * PAD, align: c.align });
      x += c.w;
    }
    return at + 20;
  };
  y = tableHeader(y + 20);
  if (!d.lines.length) {
    y = text(m.t('noLines'), left + PAD, y + 8, { color: MUTED, width: width - 2 * PAD }) + 8;
  }
  for (const line of d.lines) {
    const cells: Record<string, string> = {
      description: line.description,
      qty: m.number(plainDecimal(line.qty)),
      price: amount(line.price),
      tax: line.taxRate === null ? '—' : `${m.percent(plainDecimal(line.taxRate))}${line.taxType === 'inclusive' ? ` ${m.t('included')}` : ''}`,
      total: amount(line.total),
    };
    const h = Math.max(...cols.map((c) => heightOf(cells[c.key]!, c.w - 2 * PAD))) + 12;
    if (y + h > bottom()) {
      doc.addPage();
      y = tableHeader(MARGIN);
    }
    let x = left;
    for (const c of cols) {
      text(cells[c.key]!, x + PAD, y + 6, { width: c.w - 2 * PAD, align: c.align });
      x += c.w;
    }
    y += h;
    doc.moveTo(left, y).lineTo(right, y).lineWidth(0.5).strokeColor(RULE).stroke();
  }

  // ---- totals ----------------------------------------------------------------------------------
  // As the tax groups say (CONTRACT §6): subtotal, discount, then per rate its taxable amount
  // (when it differs from the group's base or there are several rates) and its tax.
  const rows = totalRows(d);
  const totalsX = right - 250;
  const rowH = 17;
  if (y + 14 + rows.length * rowH > bottom()) {
    doc.addPage();
    y = MARGIN;
  }
  y += 10;
  for (const row of rows) {
    if (row.strong) {
      doc.rect(totalsX, y, 250, rowH + 2).fill(SHADE);
    }
    text(row.label, totalsX + PAD, y + 4, { font: row.strong ? 'bold' : 'regular', color: row.strong ? INK : MUTED, width: 130 });
    text(row.value, totalsX + 130, y + 4, { font: row.strong ? 'bold' : 'regular', width: 120 - PAD, align: 'right' });
    y += row.strong ? rowH + 4 : rowH;
  }

  // ---- payment details, terms, notes -------------------------------------------------------------
  const section = (heading: string, body: string) => {
    const h = 14 + heightOf(body, width);
    if (y + h > bottom()) {
      doc.addPage();
      y = MARGIN;
    }
    text(heading.toLocaleUpperCase(m.locale), left, y, { font: 'bold', size: 8, color: MUTED, characterSpacing: 0.6 });
    y = text(body, left, y + 12, { width }) + 12;
  };
  y += 18;
  if (d.kind === 'invoice' && seller.iban) {
    const details = [
      m.t('bankTransferTo', { name: sellerName }),
      `IBAN: ${groupIban(String(seller.iban))}${seller.bic ? `    BIC: ${seller.bic}` : ''}`,
      ...(d.balance ? [m.t('amountLine', { value: moneyIn(m, d.balance, d.currency) })] : []),
      m.t('reference', { value: d.number }),
    ];
    // For euros, the EPC QR code of the transfer (CONTRACT §16) beside the details, drawn as squares.
    const qr = epcPossible(d.currency, d.balance, seller.iban)
      ? epcMatrix(epcPayload({ name: sellerName, iban: String(seller.iban), bic: typeof seller.bic === 'string' ? seller.bic : null, amount: d.balance!, reference: d.number }))
      : null;
    const side = 96;
    if (qr && y + side + 30 > bottom()) {
      doc.addPage();
      y = MARGIN;
    }
    const top = y;
    section(m.t('paymentDetails'), details.join('\n'));
    if (qr) {
      const cell = side / qr.size;
      const x0 = right - side;
      const y0 = top;
      doc.save().fillColor('#000000');
      for (let my = 0; my < qr.size; my++) {
        for (let mx = 0; mx < qr.size; mx++) if (qr.dark(mx, my)) doc.rect(x0 + mx * cell, y0 + my * cell, cell, cell);
      }
      doc.fill().restore();
      text(m.t('scanToPay'), x0, y0 + side + 4, { size: 7, color: MUTED, width: side, align: 'center' });
      y = Math.max(y, y0 + side + 18);
    }
  }
  // Why no VAT is charged, per group that says (CONTRACT §18): reverse charge, exemption, export …
  const vatNotes = vatNoteLines(d);
  if (vatNotes.length) section(m.t('vat'), vatNotes.join('\n'));
  if (d.reason) section(m.t('reason'), d.reason);
  if (d.terms) section(m.t('terms'), d.terms);
  if (d.notes) section(m.t('notes'), d.notes);

  // ---- footer on every page --------------------------------------------------------------------
  const range = doc.bufferedPageRange();
  const footer = typeof seller.invoiceFooter === 'string' && seller.invoiceFooter !== '' ? seller.invoiceFooter : '';
  for (let i = range.start; i < range.start + range.count; i++) {
    doc.switchToPage(i);
    // Writing below the bottom margin would start a new page: the footer has no margin.
    doc.page.margins.bottom = 0;
    const fy = H - MARGIN - 20;
    doc.moveTo(left, fy - 8).lineTo(right, fy - 8).lineWidth(0.5).strokeColor(RULE).stroke();
    if (footer) text(footer, left, fy, { size: 8, color: MUTED, width: width - 140, height: 30, ellipsis: true });
    text(m.t('page', { number: d.number, page: i - range.start + 1, count: range.count }), right - 130, fy, { size: 8, color: MUTED, width: 130, align: 'right' });
  }
  doc.end();
  if (++rendered % 64 === 0) shapedWords = Object.keys(caches.regular).length + Object.keys(caches.bold).length;
  return done;
}


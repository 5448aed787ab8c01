// A checker of the EN 16931 business rules our e-invoices must obey, written from the rules' text
// (EN 16931-1 as published in the CEN/TC 434 validation artefacts), independent of our generator
// (server/documents/ubl.ts): it reads the UBL Invoice or CreditNote back and does its own
// arithmetic in exact decimals. Every message starts with its rule id.
//
//   BR-CO-10  Sum of Invoice line net amount (BT-106) = Σ Invoice line net amount (BT-131).
//   BR-CO-11  Sum of allowances on document level (BT-107) = Σ Document level allowance amount (BT-92).
//   BR-CO-12  Sum of charges on document level (BT-108) = Σ Document level charge amount (BT-99).
//   BR-CO-13  Invoice total amount without VAT (BT-109) = Σ BT-131 − BT-107 + BT-108.
//   BR-CO-14  Invoice total VAT amount (BT-110) = Σ VAT category tax amount (BT-117).
//   BR-CO-15  Invoice total amount with VAT (BT-112) = BT-109 + BT-110.
//   BR-CO-16  Amount due for payment (BT-115) = BT-112 − Paid amount (BT-113) + Rounding amount (BT-114).
//   BR-CO-17  VAT category tax amount (BT-117) = VAT category taxable amount (BT-116) × (VAT category
//             rate (BT-119) / 100), rounded (the published artefacts accept a difference of less than
//             one currency unit, which is what lets a tax-inclusive price keep its total).
//   BR-S-08   For each rate of category S, BT-116 = Σ line net amounts (BT-131) of that category and
//             rate + Σ document level charges (BT-99) − Σ document level allowances (BT-92) of it.
//   BR-S-09   For category S, BT-117 = BT-116 × BT-119 (with the tolerance of BR-CO-17).
//   BR-31     Each Document level allowance (BG-20) shall have an amount (BT-92).
//   BR-32     … shall have a VAT category code (BT-95).
//   BR-33     … shall have a reason (BT-97) or a reason code (BT-98).
//   BR-DEC    The allowed maximum number of decimals of every amount. EN 16931 says 2; our documents
//             write each amount with its currency's minor units (JPY 0, BHD 3, CONTRACT §13), so this
//             checker holds every amount to exactly the currency's decimals.
import { XMLParser } from 'fast-xml-parser';

type X = Record<string, any>;

const REPEATED = new Set(['InvoiceLine', 'CreditNoteLine', 'AllowanceCharge', 'TaxTotal', 'TaxSubtotal']);
const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '@',
  removeNSPrefix: true,
  parseTagValue: false,
  parseAttributeValue: false,
  isArray: (name) => REPEATED.has(name),
});

const SCALE = 6;
const ONE = 10n ** BigInt(SCALE);

/** An optional amount: 0 when absent (its absence is a rule of its own). */
const opt = (v: unknown): bigint => (textOf(v) === undefined ? 0n : dec(v));

const textOf = (v: unknown): string | undefined => (v === undefined || v === null ? undefined : typeof v === 'object' ? String((v as X)['#text'] ?? '') : String(v));

/** An exact decimal as an integer scaled by 10^6. */
function dec(v: unknown): bigint {
  const s = (textOf(v) ?? '').trim();
  const m = /^([+-]?)(\d+)(?:\.(\d{0,6}))?$/.exec(s);
  if (!m) throw new Error(`not a decimal with at most 6 places: "${s}"`);
  const n = BigInt(m[2]!) * ONE + BigInt((m[3] ?? '').padEnd(SCALE, '0'));
  return m[1] === '-' ? -n : n;
}

const show = (n: bigint) => {
  const neg = n < 0n;
  const a = neg ? -n : n;
  return `${neg ? '-' : ''}${a / ONE}.${String(a % ONE).padStart(SCALE, '0')}`.replace(/\.?0+$/, '');
};

/** a × b / 100 (a and b scaled by 10^6), rounded half away from zero to `digits` decimals, scaled by 10^6. */
function percentOf(a: bigint, b: bigint, digits: number): bigint {
  const step = 10n ** BigInt(SCALE - digits);
  const d = 100n * ONE * step;
  const n = a * b;
  const abs = n < 0n ? -n : n;
  const q = ((2n * abs + d) / (2n * d)) * step;
  return n < 0n ? -q : q;
}

export function currencyDigitsOf(currency: string): number {
  try {
    return new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ?? 2;
  } catch {
    return 2;
  }
}

/** The rule violations of one UBL Invoice or CreditNote, each message starting with its rule id. */
export function en16931Violations(xml: string): string[] {
  const parsed = parser.parse(xml) as X;
  const doc = (parsed.Invoice ?? parsed.CreditNote) as X | undefined;
  if (!doc) return ['[UBL] the root element is neither Invoice nor CreditNote'];
  const out: string[] = [];
  const fail = (rule: string, msg: string) => out.push(`[${rule}] ${msg}`);
  const currency = textOf(doc.DocumentCurrencyCode) ?? '';
  const digits = currencyDigitsOf(currency);
  const unit = ONE; // one currency unit

  // BR-DEC: every amount (an element carrying currencyID) with the currency's decimals.
  const walk = (node: unknown, path: string) => {
    if (Array.isArray(node)) return node.forEach((n, i) => walk(n, `${path}[${i}]`));
    if (!node || typeof node !== 'object') return;
    const o = node as X;
    if (o['@currencyID'] !== undefined) {
      const s = textOf(o) ?? '';
      const places = s.includes('.') ? s.split('.')[1]!.length : 0;
      if (places !== digits) fail('BR-DEC', `${path} = ${s} has ${places} decimals; ${currency} amounts have ${digits}`);
      if (o['@currencyID'] !== currency) fail('BR-DEC', `${path} is in ${o['@currencyID']}, the document in ${currency}`);
      return;
    }
    for (const [k, v] of Object.entries(o)) if (!k.startsWith('@') && k !== '#text') walk(v, `${path}/${k}`);
  };
  walk(doc, '');

  const lines = ((doc.InvoiceLine ?? doc.CreditNoteLine ?? []) as X[]);
  const charges = ((doc.AllowanceCharge ?? []) as X[]);
  const isCharge = (a: X) => textOf(a.ChargeIndicator)?.trim() === 'true';
  const allowances = charges.filter((a) => !isCharge(a));
  const docCharges = charges.filter(isCharge);
  const totals = (doc.LegalMonetaryTotal ?? {}) as X;
  const taxTotals = ((doc.TaxTotal ?? []) as X[]).filter((t) => textOf(t.TaxAmount) !== undefined && (t.TaxAmount['@currencyID'] ?? currency) === currency);
  const subtotals = taxTotals.flatMap((t) => (t.TaxSubtotal ?? []) as X[]);
  const sum = (xs: bigint[]) => xs.reduce((a, b) => a + b, 0n);
  const amountOf = (v: unknown, what: string): bigint => {
    if (textOf(v) === undefined) {
      fail('BR-CO', `${what} is missing`);
      return 0n;
    }
    return dec(v);
  };

  // BR-31, BR-32, BR-33.
  allowances.forEach((a, i) => {
    if (textOf(a.Amount) === undefined) fail('BR-31', `document level allowance ${i + 1} has no amount (BT-92)`);
    if (!textOf(a.TaxCategory?.ID)) fail('BR-32', `document level allowance ${i + 1} has no VAT category code (BT-95)`);
    if (!textOf(a.AllowanceChargeReason) && !textOf(a.AllowanceChargeReasonCode)) fail('BR-33', `document level allowance ${i + 1} has neither a reason (BT-97) nor a reason code (BT-98)`);
  });

  const lineNet = sum(lines.map((l) => amountOf(l.LineExtensionAmount, 'an Invoice line net amount (BT-131)')));
  const allowanceSum = sum(allowances.map((a) => opt(a.Amount)));
  const chargeSum = sum(docCharges.map((a) => opt(a.Amount)));
  const bt106 = amountOf(totals.LineExtensionAmount, 'BT-106');
  const bt107 = textOf(totals.AllowanceTotalAmount) === undefined ? null : dec(totals.AllowanceTotalAmount);
  const bt108 = textOf(totals.ChargeTotalAmount) === undefined ? null : dec(totals.ChargeTotalAmount);
  const bt109 = amountOf(totals.TaxExclusiveAmount, 'BT-109');
  const bt112 = amountOf(totals.TaxInclusiveAmount, 'BT-112');
  const bt113 = textOf(totals.PrepaidAmount) === undefined ? 0n : dec(totals.PrepaidAmount);
  const bt114 = textOf(totals.PayableRoundingAmount) === undefined ? 0n : dec(totals.PayableRoundingAmount);
  const bt115 = amountOf(totals.PayableAmount, 'BT-115');
  const bt110 = taxTotals.length ? dec(taxTotals[0]!.TaxAmount) : 0n;

  if (bt106 !== lineNet) fail('BR-CO-10', `Sum of Invoice line net amount (BT-106) ${show(bt106)} ≠ Σ line net amounts ${show(lineNet)}`);
  if (bt107 === null ? allowances.length > 0 : bt107 !== allowanceSum) fail('BR-CO-11', `Sum of allowances on document level (BT-107) ${bt107 === null ? 'absent' : show(bt107)} ≠ Σ allowances ${show(allowanceSum)}`);
  if (bt108 === null ? docCharges.length > 0 : bt108 !== chargeSum) fail('BR-CO-12', `Sum of charges on document level (BT-108) ${bt108 === null ? 'absent' : show(bt108)} ≠ Σ charges ${show(chargeSum)}`);
  const expected109 = lineNet - (bt107 ?? 0n) + (bt108 ?? 0n);
  if (bt109 !== expected109) fail('BR-CO-13', `Invoice total amount without VAT (BT-109) ${show(bt109)} ≠ ${show(lineNet)} − ${show(bt107 ?? 0n)} + ${show(bt108 ?? 0n)}`);
  if (taxTotals.length !== 1) fail('BR-CO-14', `expected one TaxTotal in the document currency, found ${taxTotals.length}`);
  const taxSum = sum(subtotals.map((s) => amountOf(s.TaxAmount, 'a VAT category tax amount (BT-117)')));
  if (subtotals.length && bt110 !== taxSum) fail('BR-CO-14', `Invoice total VAT amount (BT-110) ${show(bt110)} ≠ Σ VAT category tax amounts ${show(taxSum)}`);
  if (bt112 !== bt109 + bt110) fail('BR-CO-15', `Invoice total amount with VAT (BT-112) ${show(bt112)} ≠ ${show(bt109)} + ${show(bt110)}`);
  if (bt115 !== bt112 - bt113 + bt114) fail('BR-CO-16', `Amount due for payment (BT-115) ${show(bt115)} ≠ ${show(bt112)} − ${show(bt113)} + ${show(bt114)}`);

  const categoryOf = (c: X | undefined) => ({ id: (textOf(c?.ID) ?? '').trim(), rate: textOf(c?.Percent) === undefined ? null : dec(c!.Percent) });
  subtotals.forEach((s, i) => {
    const cat = categoryOf(s.TaxCategory);
    const taxable = amountOf(s.TaxableAmount, 'a VAT category taxable amount (BT-116)');
    const tax = textOf(s.TaxAmount) === undefined ? 0n : dec(s.TaxAmount);
    const rate = cat.rate ?? 0n;
    // As the CEN artefact computes it: the product rounded to two decimals, whatever the currency's
    // (a JPY group's 15077 against 75388 × 20 % = 15077.6 is within the unit, not against 15078).
    const product = percentOf(taxable, rate, 2);
    const off = tax - product < 0n ? product - tax : tax - product;
    const where = `VAT breakdown ${i + 1} (${cat.id} ${cat.rate === null ? '?' : show(cat.rate)} %)`;
    if (rate === 0n ? tax !== 0n : off >= unit) fail('BR-CO-17', `${where}: tax ${show(tax)} ≠ taxable ${show(taxable)} × rate / 100 = ${show(product)}`);
    if (cat.id === 'S') {
      if (off >= unit) fail('BR-S-09', `${where}: tax ${show(tax)} ≠ ${show(taxable)} × ${show(rate)} % (${show(product)})`);
      const same = (c: X | undefined) => {
        const k = categoryOf(c);
        return k.id === 'S' && k.rate === cat.rate;
      };
      const expected = sum(lines.filter((l) => same(l.Item?.ClassifiedTaxCategory)).map((l) => dec(l.LineExtensionAmount)))
        + sum(docCharges.filter((a) => same(a.TaxCategory)).map((a) => opt(a.Amount)))
        - sum(allowances.filter((a) => same(a.TaxCategory)).map((a) => opt(a.Amount)));
      if (taxable !== expected) fail('BR-S-08', `${where}: taxable amount ${show(taxable)} ≠ its lines' net amounts + charges − allowances = ${show(expected)}`);
    }
  });
  return out;
}

/** Throws with every violated rule when the document breaks one. */
export function assertEn16931(xml: string): void {
  const v = en16931Violations(xml);
  if (v.length) throw new Error(`The UBL document breaks EN 16931:\n  ${v.join('\n  ')}`);
}

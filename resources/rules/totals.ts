// The arithmetic of CONTRACT §6, exact: money is an integer of minor units, quantities and rates
// are decimals parsed from their exact text into scaled BigInts (4 places), and every rounding is
// half away from zero. No floating point takes part in any computation. Pure functions only:
// the hooks (documents.ts) and the property tests use this same module.

/** Decimal places of `qty`, tax `rate` and `discountValue`. */
export const SCALE = 4;
const ONE = 10n ** BigInt(SCALE);
const HUNDRED = 100n * ONE;

export type TaxType = 'exclusive' | 'inclusive';
/** EN 16931 VAT category codes (UNCL5305) the service uses (CONTRACT §18). */
export const TAX_CATEGORIES = ['S', 'Z', 'E', 'AE', 'K', 'G', 'O'] as const;
export type TaxCategory = (typeof TAX_CATEGORIES)[number];

/** What a line's tax says besides its rate: its category (default S above 0 %, else Z) and exemption reason. */
export interface TaxClass {
  category?: TaxCategory | null;
  exemptionReason?: string | null;
  exemptionReasonCode?: string | null;
}

/** The category a tax of `rate` has when none is given: S above 0 %, else Z. */
export const defaultCategory = (rate: string | number | bigint | null | undefined): TaxCategory =>
  rate !== null && rate !== undefined && scaled(rate) > 0n ? 'S' : 'Z';
export type DiscountType = 'none' | 'percentage' | 'fixed';

export interface LineInput {
  /** Unit price in minor units. */
  price: number | bigint;
  /** Quantity: a decimal as text ("1.5", "2.0000") or as a JSON number with at most 4 places. */
  qty: string | number;
  /** The tax applied, or null. `rate` is a percentage (decimal text or number). */
  tax: ({ rate: string | number; type: TaxType } & TaxClass) | null;
}

export interface LineAmounts {
  /** round(price × qty). */
  total: number;
  /** What the line adds to its group's base: total, less the tax it contains when inclusive. */
  net: number;
}

export interface Discount {
  type: DiscountType;
  value: string | number;
}

/** The lines of one tax category at one rate (CONTRACT §6.2–4, §18); lines without a tax form the Z 0 % group. */
export interface TaxGroup {
  /** The rate as a decimal number (at most 4 places). */
  rate: number;
  category: TaxCategory;
  /** Why no VAT is charged (E, AE, K, G, O): the text, or the VATEX code's meaning. */
  exemptionReason: string | null;
  /** The VATEX code, when the tax has one. */
  exemptionReasonCode: string | null;
  /** Σ net of the group's lines. */
  base: number;
  /** The group's share of the document's discount. */
  discount: number;
  /** base − discount. */
  taxable: number;
  tax: number;
}

export interface Totals {
  lines: LineAmounts[];
  /** Ascending by rate, then category. */
  groups: TaxGroup[];
  subtotal: number;
  taxTotal: number;
  discountTotal: number;
  total: number;
  /** A fixed discount larger than Σ base (it is then capped at Σ base, or 0 when that is below 0). */
  discountExceedsBase: boolean;
}

export class AmountTooLarge extends RangeError {
  constructor() {
    super('The amounts are too large.');
  }
}

/** Parses an exact decimal ("-12.5", "3.0000", 7) into an integer scaled by 10^SCALE. */
export function scaled(value: string | number | bigint, scale = SCALE): bigint {
  if (typeof value === 'bigint') return value * 10n ** BigInt(scale);
  let text: string;
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new RangeError(`Not a finite number: ${value}`);
    // A double that came from a decimal with ≤ `scale` places prints back as that decimal.
    text = value.toFixed(scale);
    if (Number(text) !== value) throw new RangeError(`${value} has more than ${scale} decimal places`);
  } else text = value.trim();
  const m = /^([+-]?)(\d+)(?:\.(\d*))?$/.exec(text);
  if (!m) throw new RangeError(`Not a decimal: "${text}"`);
  const [, sign, int, frac = ''] = m as unknown as [string, string, string, string | undefined];
  if (frac.length > scale && /[1-9]/.test(frac.slice(scale))) throw new RangeError(`"${text}" has more than ${scale} decimal places`);
  const digits = BigInt(int + frac.slice(0, scale).padEnd(scale, '0'));
  return sign === '-' ? -digits : digits;
}

/** An integer scaled by 10^SCALE as the shortest decimal text ("20", "7.5", "-0.0125"). */
export function unscaled(v: bigint): string {
  const neg = v < 0n;
  const a = neg ? -v : v;
  const frac = String(a % ONE).padStart(SCALE, '0').replace(/0+$/, '');
  return `${neg ? '-' : ''}${a / ONE}${frac ? `.${frac}` : ''}`;
}

/** n / d rounded to the nearest integer, halves away from zero. */
export function divRound(n: bigint, d: bigint): bigint {
  if (d === 0n) throw new RangeError('Division by zero');
  if (d < 0n) {
    n = -n;
    d = -d;
  }
  const q = n / d; // truncates toward zero
  const r = n % d; // same sign as n
  const twice = (r < 0n ? -r : r) * 2n;
  if (twice >= d) return n < 0n ? q - 1n : q + 1n;
  return q;
}

/** ⌊n / d⌋ for d > 0 (BigInt division truncates toward zero). */
function floorDiv(n: bigint, d: bigint): bigint {
  const q = n / d;
  return n % d !== 0n && n < 0n ? q - 1n : q;
}

function toSafe(v: bigint): number {
  if (v > BigInt(Number.MAX_SAFE_INTEGER) || v < -BigInt(Number.MAX_SAFE_INTEGER)) throw new AmountTooLarge();
  return Number(v);
}

function lineBig(line: LineInput): { total: bigint; net: bigint } {
  const total = divRound(BigInt(line.price) * scaled(line.qty), ONE);
  if (line.tax?.type !== 'inclusive') return { total, net: total };
  return { total, net: divRound(total * HUNDRED, HUNDRED + scaled(line.tax.rate)) };
}

/** One line (§6.1): `total = round(price × qty)`; `net` is total less the tax an inclusive price contains. */
export function lineAmounts(line: LineInput): LineAmounts {
  const { total, net } = lineBig(line);
  return { total: toSafe(total), net: toSafe(net) };
}

/**
 * Splits a fixed discount `amount` over bases (§6.3): each gets ⌊amount × base / Σ base⌋, and the
 * units still missing go one each to the largest remainders (ties: the larger base, then the
 * higher rate). Σ result = amount exactly; with bases ≥ 0 each share lies in [0, base].
 */
export function splitFixed(amount: bigint, bases: readonly bigint[], rates: readonly bigint[] = bases.map(() => 0n)): bigint[] {
  const sum = bases.reduce((s, b) => s + b, 0n);
  if (sum <= 0n || amount === 0n) return bases.map(() => 0n);
  const shares = bases.map((b) => floorDiv(amount * b, sum));
  let missing = amount - shares.reduce((s, x) => s + x, 0n);
  const order = bases
    .map((b, i) => ({ i, rem: amount * b - shares[i]! * sum, b, rate: rates[i]! }))
    .sort((x, y) => (x.rem !== y.rem ? (y.rem > x.rem ? 1 : -1) : x.b !== y.b ? (y.b > x.b ? 1 : -1) : y.rate > x.rate ? 1 : y.rate < x.rate ? -1 : 0));
  for (const o of order) {
    if (missing <= 0n) break;
    shares[o.i]! += 1n;
    missing -= 1n;
  }
  return shares;
}

/** The meaning of the VATEX codes most used, for a group whose tax gives a code without a text. */
export const VATEX_TEXT: Record<string, string> = {
  'VATEX-EU-AE': 'Reverse charge: VAT to be accounted for by the recipient',
  'VATEX-EU-IC': 'Intra-community supply: exempt under Article 138 of Directive 2006/112/EC',
  'VATEX-EU-G': 'Export outside the EU: exempt under Article 146 of Directive 2006/112/EC',
  'VATEX-EU-O': 'Not subject to VAT',
  'VATEX-EU-132': 'Exempt under Article 132 of Directive 2006/112/EC',
  'VATEX-EU-143': 'Exempt under Article 143 of Directive 2006/112/EC',
  'VATEX-EU-148': 'Exempt under Article 148 of Directive 2006/112/EC',
  'VATEX-EU-151': 'Exempt under Article 151 of Directive 2006/112/EC',
  'VATEX-EU-309': 'Travel agents: VAT margin scheme, Article 309 of Directive 2006/112/EC',
  'VATEX-EU-79-C': 'Exempt under Article 79, point c of Directive 2006/112/EC',
  'VATEX-FR-FRANCHISE': 'TVA non applicable, art. 293 B du CGI',
};

/** A tax's class with its defaults: the category from the rate, the reason's text from the code. */
export function taxClassOf(tax: ({ rate: string | number } & TaxClass) | null, untaxed: TaxClass = {}): { category: TaxCategory; exemptionReason: string | null; exemptionReasonCode: string | null } {
  const c = tax ?? untaxed;
  const category = c.category ?? (tax ? defaultCategory(tax.rate) : 'Z');
  const code = c.exemptionReasonCode ?? null;
  const reason = c.exemptionReason ?? (code ? VATEX_TEXT[code.toUpperCase()] ?? code : null);
  return { category, exemptionReason: category === 'S' || category === 'Z' ? null : reason, exemptionReasonCode: category === 'S' || category === 'Z' ? null : code };
}

/**
 * A document's totals from its lines and discount (CONTRACT §6, §18). `untaxed` is the class of
 * lines without a tax (Z by default; O for a company not registered for VAT).
 */
export function computeTotals(lines: readonly LineInput[], discount: Discount, untaxed: TaxClass = {}): Totals {
  const amounts = lines.map(lineBig);
  // §6.2, §18: one group per (category, rate).
  type G = { rate: bigint; base: bigint; gross: bigint; inclusiveOnly: boolean; cls: ReturnType<typeof taxClassOf> };
  const byKey = new Map<string, G>();
  lines.forEach((line, i) => {
    const rate = line.tax ? scaled(line.tax.rate) : 0n;
    const cls = taxClassOf(line.tax, untaxed);
    const key = `${cls.category}|${rate}`;
    let g = byKey.get(key);
    if (!g) byKey.set(key, (g = { rate, base: 0n, gross: 0n, inclusiveOnly: true, cls }));
    g.base += amounts[i]!.net;
    g.gross += amounts[i]!.total;
    if (line.tax?.type !== 'inclusive') g.inclusiveOnly = false;
  });
  const groups = [...byKey.values()].sort((a, b) => (a.rate < b.rate ? -1 : a.rate > b.rate ? 1 : a.cls.category < b.cls.category ? -1 : a.cls.category > b.cls.category ? 1 : 0));
  const subtotal = groups.reduce((s, g) => s + g.base, 0n);

  // §6.3: each group's discount.
  let discounts: bigint[] = groups.map(() => 0n);
  let discountExceedsBase = false;
  if (discount.type === 'percentage') {
    const p = scaled(discount.value);
    discounts = groups.map((g) => divRound(g.base * p, HUNDRED));
  } else if (discount.type === 'fixed') {
    let amount = scaled(discount.value) / ONE; // a whole amount of minor units (discountProblems)
    const cap = subtotal > 0n ? subtotal : 0n;
    if (amount > cap) {
      discountExceedsBase = amount > 0n;
      amount = cap;
    }
    discounts = splitFixed(amount, groups.map((g) => g.base), groups.map((g) => g.rate));
  }

  // §6.4: tax per group on its taxable amount.
  let taxTotal = 0n;
  let discountTotal = 0n;
  const out = groups.map((g, i): TaxGroup => {
    const d = discounts[i]!;
    const taxable = g.base - d;
    const tax = d === 0n && g.inclusiveOnly ? g.gross - g.base : divRound(taxable * g.rate, HUNDRED);
    taxTotal += tax;
    discountTotal += d;
    return {
      rate: Number(unscaled(g.rate)), category: g.cls.category, exemptionReason: g.cls.exemptionReason, exemptionReasonCode: g.cls.exemptionReasonCode,
      base: toSafe(g.base), discount: toSafe(d), taxable: toSafe(taxable), tax: toSafe(tax),
    };
  });
  return {
    lines: amounts.map((a) => ({ total: toSafe(a.total), net: toSafe(a.net) })),
    groups: out,
    subtotal: toSafe(subtotal),
    taxTotal: toSafe(taxTotal),
    discountTotal: toSafe(discountTotal),
    total: toSafe(subtotal - discountTotal + taxTotal),
    discountExceedsBase,
  };
}

/** What is wrong with a discount regardless of the lines (a message for `discountValue`), or null. */
export function discountProblems(discount: Discount): string | null {
  if (discount.type === 'percentage' && scaled(discount.value) > HUNDRED) return 'A percentage discount should be between 0 and 100.';
  if (discount.type === 'fixed' && scaled(discount.value) % ONE !== 0n) return 'A fixed discount is a whole amount in minor units.';
  return null;
}

/**
 * The discount of a credit for part of a document's lines (CONTRACT §14): the document's
 * percentage as is; its fixed amount in the proportion the credited lines' subtotal (`lines`,
 * computed without discount) bears to the document's `subtotal`, rounded half away from zero; none
 * otherwise. The credit operation and the application's dialog both use it.
 */
export function partDiscount(discount: Discount, lines: readonly LineInput[], subtotal: number): Discount {
  if (discount.type === 'percentage') return discount;
  if (discount.type !== 'fixed' || subtotal <= 0) return { type: 'none', value: 0 };
  const part = BigInt(computeTotals(lines, { type: 'none', value: 0 }).subtotal);
  const share = divRound((scaled(discount.value) / ONE) * part, BigInt(subtotal));
  return share > 0n ? { type: 'fixed', value: toSafe(share) } : { type: 'none', value: 0 };
}

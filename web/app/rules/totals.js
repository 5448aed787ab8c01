// Generated from resources/rules/totals.ts by scripts/app-rules.ts: do not edit (the types stripped, nothing else).
const SCALE = 4;
const ONE = 10n ** BigInt(SCALE);
const HUNDRED = 100n * ONE;
const TAX_CATEGORIES = ["S", "Z", "E", "AE", "K", "G", "O"];
const defaultCategory = (rate) => rate !== null && rate !== void 0 && scaled(rate) > 0n ? "S" : "Z";
class AmountTooLarge extends RangeError {
  constructor() {
    super("The amounts are too large.");
  }
}
function scaled(value, scale = SCALE) {
  if (typeof value === "bigint") return value * 10n ** BigInt(scale);
  let text;
  if (typeof value === "number") {
    if (!Number.isFinite(value)) throw new RangeError(`Not a finite number: ${value}`);
    text = value.toFixed(scale);
    if (Number(text) !== value) throw new RangeError(`${value} has more than ${scale} decimal places`);
  } else text = value.trim();
  const m = /^([+-]?)(\d+)(?:\.(\d*))?$/.exec(text);
  if (!m) throw new RangeError(`Not a decimal: "${text}"`);
  const [, sign, int, frac = ""] = m;
  if (frac.length > scale && /[1-9]/.test(frac.slice(scale))) throw new RangeError(`"${text}" has more than ${scale} decimal places`);
  const digits = BigInt(int + frac.slice(0, scale).padEnd(scale, "0"));
  return sign === "-" ? -digits : digits;
}
function unscaled(v) {
  const neg = v < 0n;
  const a = neg ? -v : v;
  const frac = String(a % ONE).padStart(SCALE, "0").replace(/0+$/, "");
  return `${neg ? "-" : ""}${a / ONE}${frac ? `.${frac}` : ""}`;
}
function divRound(n, d) {
  if (d === 0n) throw new RangeError("Division by zero");
  if (d < 0n) {
    n = -n;
    d = -d;
  }
  const q = n / d;
  const r = n % d;
  const twice = (r < 0n ? -r : r) * 2n;
  if (twice >= d) return n < 0n ? q - 1n : q + 1n;
  return q;
}
function floorDiv(n, d) {
  const q = n / d;
  return n % d !== 0n && n < 0n ? q - 1n : q;
}
function toSafe(v) {
  if (v > BigInt(Number.MAX_SAFE_INTEGER) || v < -BigInt(Number.MAX_SAFE_INTEGER)) throw new AmountTooLarge();
  return Number(v);
}
function lineBig(line) {
  const total = divRound(BigInt(line.price) * scaled(line.qty), ONE);
  if (line.tax?.type !== "inclusive") return { total, net: total };
  return { total, net: divRound(total * HUNDRED, HUNDRED + scaled(line.tax.rate)) };
}
function lineAmounts(line) {
  const { total, net } = lineBig(line);
  return { total: toSafe(total), net: toSafe(net) };
}
function splitFixed(amount, bases, rates = bases.map(() => 0n)) {
  const sum = bases.reduce((s, b) => s + b, 0n);
  if (sum <= 0n || amount === 0n) return bases.map(() => 0n);
  const shares = bases.map((b) => floorDiv(amount * b, sum));
  let missing = amount - shares.reduce((s, x) => s + x, 0n);
  const order = bases.map((b, i) => ({ i, rem: amount * b - shares[i] * sum, b, rate: rates[i] })).sort((x, y) => x.rem !== y.rem ? y.rem > x.rem ? 1 : -1 : x.b !== y.b ? y.b > x.b ? 1 : -1 : y.rate > x.rate ? 1 : y.rate < x.rate ? -1 : 0);
  for (const o of order) {
    if (missing <= 0n) break;
    shares[o.i] += 1n;
    missing -= 1n;
  }
  return shares;
}
const VATEX_TEXT = {
  "VATEX-EU-AE": "Reverse charge: VAT to be accounted for by the recipient",
  "VATEX-EU-IC": "Intra-community supply: exempt under Article 138 of Directive 2006/112/EC",
  "VATEX-EU-G": "Export outside the EU: exempt under Article 146 of Directive 2006/112/EC",
  "VATEX-EU-O": "Not subject to VAT",
  "VATEX-EU-132": "Exempt under Article 132 of Directive 2006/112/EC",
  "VATEX-EU-143": "Exempt under Article 143 of Directive 2006/112/EC",
  "VATEX-EU-148": "Exempt under Article 148 of Directive 2006/112/EC",
  "VATEX-EU-151": "Exempt under Article 151 of Directive 2006/112/EC",
  "VATEX-EU-309": "Travel agents: VAT margin scheme, Article 309 of Directive 2006/112/EC",
  "VATEX-EU-79-C": "Exempt under Article 79, point c of Directive 2006/112/EC",
  "VATEX-FR-FRANCHISE": "TVA non applicable, art. 293 B du CGI"
};
function taxClassOf(tax, untaxed = {}) {
  const c = tax ?? untaxed;
  const category = c.category ?? (tax ? defaultCategory(tax.rate) : "Z");
  const code = c.exemptionReasonCode ?? null;
  const reason = c.exemptionReason ?? (code ? VATEX_TEXT[code.toUpperCase()] ?? code : null);
  return { category, exemptionReason: category === "S" || category === "Z" ? null : reason, exemptionReasonCode: category === "S" || category === "Z" ? null : code };
}
function computeTotals(lines, discount, untaxed = {}) {
  const amounts = lines.map(lineBig);
  const byKey = /* @__PURE__ */ new Map();
  lines.forEach((line, i) => {
    const rate = line.tax ? scaled(line.tax.rate) : 0n;
    const cls = taxClassOf(line.tax, untaxed);
    const key = `${cls.category}|${rate}`;
    let g = byKey.get(key);
    if (!g) byKey.set(key, g = { rate, base: 0n, gross: 0n, inclusiveOnly: true, cls });
    g.base += amounts[i].net;
    g.gross += amounts[i].total;
    if (line.tax?.type !== "inclusive") g.inclusiveOnly = false;
  });
  const groups = [...byKey.values()].sort((a, b) => a.rate < b.rate ? -1 : a.rate > b.rate ? 1 : a.cls.category < b.cls.category ? -1 : a.cls.category > b.cls.category ? 1 : 0);
  const subtotal = groups.reduce((s, g) => s + g.base, 0n);
  let discounts = groups.map(() => 0n);
  let discountExceedsBase = false;
  if (discount.type === "percentage") {
    const p = scaled(discount.value);
    discounts = groups.map((g) => divRound(g.base * p, HUNDRED));
  } else if (discount.type === "fixed") {
    let amount = scaled(discount.value) / ONE;
    const cap = subtotal > 0n ? subtotal : 0n;
    if (amount > cap) {
      discountExceedsBase = amount > 0n;
      amount = cap;
    }
    discounts = splitFixed(amount, groups.map((g) => g.base), groups.map((g) => g.rate));
  }
  let taxTotal = 0n;
  let discountTotal = 0n;
  const out = groups.map((g, i) => {
    const d = discounts[i];
    const taxable = g.base - d;
    const tax = d === 0n && g.inclusiveOnly ? g.gross - g.base : divRound(taxable * g.rate, HUNDRED);
    taxTotal += tax;
    discountTotal += d;
    return {
      rate: Number(unscaled(g.rate)),
      category: g.cls.category,
      exemptionReason: g.cls.exemptionReason,
      exemptionReasonCode: g.cls.exemptionReasonCode,
      base: toSafe(g.base),
      discount: toSafe(d),
      taxable: toSafe(taxable),
      tax: toSafe(tax)
    };
  });
  return {
    lines: amounts.map((a) => ({ total: toSafe(a.total), net: toSafe(a.net) })),
    groups: out,
    subtotal: toSafe(subtotal),
    taxTotal: toSafe(taxTotal),
    discountTotal: toSafe(discountTotal),
    total: toSafe(subtotal - discountTotal + taxTotal),
    discountExceedsBase
  };
}
function discountProblems(discount) {
  if (discount.type === "percentage" && scaled(discount.value) > HUNDRED) return "A percentage discount should be between 0 and 100.";
  if (discount.type === "fixed" && scaled(discount.value) % ONE !== 0n) return "A fixed discount is a whole amount in minor units.";
  return null;
}
function partDiscount(discount, lines, subtotal) {
  if (discount.type === "percentage") return discount;
  if (discount.type !== "fixed" || subtotal <= 0) return { type: "none", value: 0 };
  const part = BigInt(computeTotals(lines, { type: "none", value: 0 }).subtotal);
  const share = divRound(scaled(discount.value) / ONE * part, BigInt(subtotal));
  return share > 0n ? { type: "fixed", value: toSafe(share) } : { type: "none", value: 0 };
}
export {
  AmountTooLarge,
  SCALE,
  TAX_CATEGORIES,
  VATEX_TEXT,
  computeTotals,
  defaultCategory,
  discountProblems,
  divRound,
  lineAmounts,
  partDiscount,
  scaled,
  splitFixed,
  taxClassOf,
  unscaled
};

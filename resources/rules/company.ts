// The company profile's own value rules: IBAN (ISO 13616 check digits), BIC (ISO 9362) and VAT
// identifier shapes, checked by the engine on each field (resources/company.ts).

/** Space and punctuation people type inside an IBAN or a VAT number are not part of it. */
export const compact = (s: string): string => s.replace(/[\s.\-/]/g, '').toUpperCase();

/** ISO 13616: two letters, two check digits, up to 30 letters or digits; mod 97 of the rearranged number is 1. */
export function ibanProblem(iban: string): string | null {
  if (!/^[A-Z]{2}\d{2}[A-Z0-9]{11,30}$/.test(iban)) return 'This value is not a valid IBAN: two letters, two check digits and the account number.';
  const digits = (iban.slice(4) + iban.slice(0, 4)).replace(/[A-Z]/g, (c) => String(c.charCodeAt(0) - 55));
  let rest = 0;
  for (const d of digits) rest = (rest * 10 + Number(d)) % 97;
  return rest === 1 ? null : 'This value is not a valid IBAN: its check digits do not match.';
}

/** ISO 9362: bank (4 letters), country (2 letters), location (2), optional branch (3). */
export const bicProblem = (bic: string): string | null =>
  /^[A-Z]{4}[A-Z]{2}[A-Z0-9]{2}([A-Z0-9]{3})?$/.test(bic) ? null : 'This value is not a valid BIC: 8 or 11 letters and digits, e.g. DEUTDEFF.';

/** A VAT identifier starts with its country's two letters (Greece: EL) and has 2 to 13 letters or digits after them. */
export const vatProblem = (vat: string): string | null =>
  /^[A-Z]{2}[A-Z0-9+*]{2,13}$/.test(vat) ? null : 'This value is not a valid VAT number: the country prefix and 2 to 13 letters or digits, e.g. DE123456789.';

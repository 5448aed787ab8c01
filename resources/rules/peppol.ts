// Electronic addresses (CONTRACT §18): `<scheme>:<id>` with a scheme of Peppol's EAS code list (the
// list Peppol BIS Billing 3.0.19 checks in PEPPOL-EN16931-CL008) and the checks the schemes define:
// GLN (0088) GS1 mod 10, Belgian enterprise number (0208) mod 97, Norwegian organisation number
// (0192) mod 11, and for the VAT schemes (99xx) their country's VAT number form.

/** Peppol's Electronic Address Scheme codes (EAS). */
export const EAS_CODES: ReadonlySet<string> = new Set(
  ('0002 0007 0009 0037 0060 0088 0096 0097 0106 0130 0135 0142 0147 0151 0154 0158 0170 0177 0183 0184 0188 0190 0191 0192 0193 0194 0195 0196 0198 0199 ' +
    '0200 0201 0202 0203 0204 0205 0208 0209 0210 0211 0212 0213 0215 0216 0217 0218 0221 0225 0230 0235 0240 9910 9913 9914 9915 9918 9919 9920 9922 9923 ' +
    '9924 9925 9926 9927 9928 9929 9930 9931 9932 9933 9934 9935 9936 9937 9938 9939 9940 9941 9942 9943 9944 9945 9946 9947 9948 9949 9950 9951 9952 9953 9957 9959').split(' '),
);

/** The EAS VAT schemes and the form of their country's VAT number (prefix included). */
const VAT_SCHEMES: Record<string, { country: string; form: RegExp }> = {
  '9910': { country: 'HU', form: /^HU\d{8}$/ },
  '9914': { country: 'AT', form: /^ATU\d{8}$/ },
  '9920': { country: 'ES', form: /^ES[A-Z0-9]\d{7}[A-Z0-9]$/ },
  '9922': { country: 'AD', form: /^AD[A-Z0-9]{6,10}$/ },
  '9923': { country: 'AL', form: /^AL[A-Z0-9]{8,10}$/ },
  '9924': { country: 'BA', form: /^BA\d{12,13}$/ },
  '9925': { country: 'BE', form: /^BE[01]\d{9}$/ },
  '9926': { country: 'BG', form: /^BG\d{9,10}$/ },
  '9927': { country: 'CH', form: /^CHE\d{9}(MWST|TVA|IVA)?$/ },
  '9928': { country: 'CY', form: /^CY\d{8}[A-Z]$/ },
  '9929': { country: 'CZ', form: /^CZ\d{8,10}$/ },
  '9930': { country: 'DE', form: /^DE\d{9}$/ },
  '9931': { country: 'EE', form: /^EE\d{9}$/ },
  '9932': { country: 'GB', form: /^GB(\d{9}|\d{12}|GD\d{3}|HA\d{3})$/ },
  '9933': { country: 'GR', form: /^(EL)?\d{9}$/ },
  '9934': { country: 'HR', form: /^HR\d{11}$/ },
  '9935': { country: 'IE', form: /^IE(\d{7}[A-W][A-I]?|\d[A-Z+*]\d{5}[A-W])$/ },
  '9936': { country: 'LI', form: /^LI[A-Z0-9]{5,12}$/ },
  '9937': { country: 'LT', form: /^LT(\d{9}|\d{12})$/ },
  '9938': { country: 'LU', form: /^LU\d{8}$/ },
  '9939': { country: 'LV', form: /^LV\d{11}$/ },
  '9940': { country: 'MC', form: /^FR[A-Z0-9]{2}\d{9}$/ },
  '9941': { country: 'ME', form: /^ME\d{8}$/ },
  '9942': { country: 'MK', form: /^MK\d{13}$/ },
  '9943': { country: 'MT', form: /^MT\d{8}$/ },
  '9944': { country: 'NL', form: /^NL\d{9}B\d{2}$/ },
  '9945': { country: 'PL', form: /^PL\d{10}$/ },
  '9946': { country: 'PT', form: /^PT\d{9}$/ },
  '9947': { country: 'RO', form: /^RO\d{2,10}$/ },
  '9948': { country: 'RS', form: /^RS\d{9}$/ },
  '9949': { country: 'SI', form: /^SI\d{8}$/ },
  '9950': { country: 'SK', form: /^SK\d{10}$/ },
  '9951': { country: 'SM', form: /^SM\d{3,5}$/ },
  '9952': { country: 'TR', form: /^TR\d{10}$/ },
  '9953': { country: 'VA', form: /^VA[A-Z0-9]{5,12}$/ },
  '9957': { country: 'FR', form: /^FR[A-HJ-NP-Z0-9]{2}\d{9}$/ },
};

/** GS1 check digit: weights 3 and 1 from the right, excluding the check digit. */
export function glnValid(id: string): boolean {
  if (!/^\d{8,14}$/.test(id)) return false;
  const digits = [...id].map(Number);
  const check = digits.pop()!;
  const sum = digits.reverse().reduce((s, d, i) => s + d * (i % 2 === 0 ? 3 : 1), 0);
  return (10 - (sum % 10)) % 10 === check;
}

/** Belgian enterprise number: 10 digits, 97 − (first 8 mod 97) = the last 2. */
export const belgianEnterpriseValid = (id: string): boolean =>
  /^[01]\d{9}$/.test(id) && 97 - (Number(id.slice(0, 8)) % 97) === Number(id.slice(8));

/** Norwegian organisation number: 9 digits, weights 3 2 7 6 5 4 3 2, mod 11. */
export function norwegianOrgValid(id: string): boolean {
  if (!/^\d{9}$/.test(id)) return false;
  const w = [3, 2, 7, 6, 5, 4, 3, 2];
  const sum = w.reduce((s, x, i) => s + x * Number(id[i]), 0);
  const check = 11 - (sum % 11);
  return (check === 11 ? 0 : check) === Number(id[8]) && check !== 10;
}

/** `0208:0123 456 749` → `0208:0123456749`: spaces and dots inside the identifier are not part of it; VAT schemes upper-cased. */
export function normalisePeppolId(v: string): string {
  const m = /^\s*(\d{4})\s*:\s*(.*?)\s*$/.exec(v);
  if (!m) return v.trim();
  const scheme = m[1]!;
  let id = m[2]!;
  if (scheme === '0088' || scheme === '0208' || scheme === '0192' || VAT_SCHEMES[scheme]) id = id.replace(/[\s.\-]/g, '');
  if (VAT_SCHEMES[scheme]) id = id.toUpperCase();
  return `${scheme}:${id}`;
}

/** What is wrong with an electronic address, or null. */
export function peppolIdProblem(v: string): string | null {
  const m = /^(\d{4}):([^\s:][^\s]{0,99})$/.exec(v);
  if (!m) return 'An electronic address is <scheme>:<identifier>, the scheme a code of Peppol\'s EAS list, e.g. 0208:0123456749 or 9930:DE123456789.';
  const [, scheme, id] = m as unknown as [string, string, string];
  if (!EAS_CODES.has(scheme)) return `${scheme} is not a scheme of Peppol's EAS code list.`;
  if (scheme === '0088' && !glnValid(id)) return 'This is not a valid GLN (0088): 13 digits with a GS1 check digit.';
  if (scheme === '0208' && !belgianEnterpriseValid(id)) return 'This is not a valid Belgian enterprise number (0208): 10 digits whose last two are 97 − (the first eight mod 97).';
  if (scheme === '0192' && !norwegianOrgValid(id)) return 'This is not a valid Norwegian organisation number (0192): 9 digits with a mod 11 check digit.';
  const vat = VAT_SCHEMES[scheme];
  if (vat && !vat.form.test(id)) return `This is not a VAT number of ${vat.country}, which scheme ${scheme} is for.`;
  return null;
}

/** The scheme and identifier of a stored electronic address. */
export function splitPeppolId(v: string): { scheme: string; id: string } {
  const i = v.indexOf(':');
  return { scheme: v.slice(0, i), id: v.slice(i + 1) };
}

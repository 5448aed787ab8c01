// Country names come from the ICU data shipped with Node, so there is no list to maintain.
const names = new Intl.DisplayNames(['en'], { type: 'region', fallback: 'none' });

export function countryName(code: unknown): string | null {
  if (typeof code !== 'string' || !/^[A-Z]{2}$/.test(code)) return null;
  const name = names.of(code);
  return name && name !== 'Unknown Region' ? name : null;
}

export const isCountry = (code: string): boolean => countryName(code) !== null;

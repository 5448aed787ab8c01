// The languages of the service (CONTRACT §20) and a request's, from its Accept-Language: the
// account e-mails a request asks for (a password reset) are written in it.

export const LANGUAGES = ['en', 'de', 'fr'] as const;
export type Language = (typeof LANGUAGES)[number];

/** The language of the application for a request: the first of Accept-Language's that is ours, else English; with its BCP 47 tag for Intl. */
export function languageOf(acceptLanguage: string | undefined): { language: Language; locale: string } {
  const wanted = (acceptLanguage ?? '')
    .split(',')
    .map((part, n) => {
      const [tag, ...params] = part.trim().split(';');
      const q = params.map((p) => /^\s*q=([\d.]+)\s*$/.exec(p)?.[1]).find(Boolean);
      return { tag: (tag ?? '').trim(), q: q === undefined ? 1 : Number(q), n };
    })
    .filter((w) => /^[A-Za-z]{2,3}(-[A-Za-z0-9]{1,8})*$/.test(w.tag) && w.q > 0)
    .sort((a, b) => b.q - a.q || a.n - b.n);
  for (const w of wanted) {
    const language = w.tag.slice(0, 2).toLowerCase();
    if ((LANGUAGES as readonly string[]).includes(language)) return { language: language as Language, locale: w.tag };
  }
  return { language: 'en', locale: 'en' };
}

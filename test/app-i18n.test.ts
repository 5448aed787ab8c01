// The languages of /app (CONTRACT §20): the three catalogues have the same keys and every message
// is valid ICU; every word the description shows people (labels, choices, confirmations, help) has
// its German and French (resources/labels.ts), and every resource noun its gender; the language
// follows Accept-Language.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { IntlMessageFormat } from 'intl-messageformat';
import { describe, expect, it } from 'vitest';
import { describeModel } from '../http/describe.ts';
import { appCatalogue, translateDescription, type MessageAst } from '../http/describe-i18n.ts';
import { formatterFiles, TARGET_DIR } from '../scripts/app-formatter.ts';
// @ts-expect-error: the browser's formatter (vendor/intl-messageformat: intl-messageformat without its parser), a plain ES module.
import { IntlMessageFormat as PageFormat } from '../vendor/intl-messageformat/intl-messageformat.js';
import { languageOf } from '../http/languages.ts';
import { GENDERS, TERMS } from '../resources/labels.ts';
import { model } from '../server/model.ts';
import { accountMessage } from '../server/email/account-messages.ts';
// @ts-expect-error: the pages' plain ES module, whose t() formats the catalogue's messages.
import * as lib from '../web/app/lib.js';

// The browser's catalogues (plain ES modules, no declarations).
const catalogue = async (lang: string) => ((await import(`../web/app/messages/${lang}.js`)) as { default: Record<string, string> }).default;
const [en, de, fr] = await Promise.all(['en', 'de', 'fr'].map(catalogue)) as [Record<string, string>, Record<string, string>, Record<string, string>];

describe('the catalogues of /app', () => {
  it('have the same keys, and every message parses in its language', () => {
    for (const [lang, c] of Object.entries({ de, fr })) {
      expect(Object.keys(c).sort(), lang).toEqual(Object.keys(en).sort());
    }
    for (const [lang, c] of Object.entries({ en, de, fr })) {
      for (const [key, text] of Object.entries(c as Record<string, string>)) expect(() => new IntlMessageFormat(text, lang), `${lang} ${key}`).not.toThrow();
    }
  });

  it('choose plurals and genders by the language’s rules', () => {
    const f = (c: Record<string, string>, k: string, lang: string, v: Record<string, unknown>) => String(new IntlMessageFormat(c[k]!, lang).format(v));
    expect(f(en, 'list.count', 'en', { count: 1, one: 'invoice', many: 'invoices' })).toBe('1 invoice');
    expect(f(de, 'list.count', 'de', { count: 2, one: 'Rechnung', many: 'Rechnungen' })).toBe('2 Rechnungen');
    // French counts 0 as singular.
    expect(f(fr, 'list.count', 'fr', { count: 0, one: 'facture', many: 'factures' })).toBe('0 facture');
    expect(f(de, 'record.new', 'de', { gender: 'n', one: 'Angebot' })).toBe('Neues Angebot');
    expect(f(de, 'record.new', 'de', { gender: 'm', one: 'Kunde' })).toBe('Neuer Kunde');
    expect(f(fr, 'record.new', 'fr', { gender: 'm', elided: 'yes', one: 'avoir' })).toBe('Nouvel avoir');
    expect(f(fr, 'record.edit', 'fr', { gender: 'f', elided: 'yes', one: 'adresse' })).toBe('Modifier l’adresse');
    expect(f(fr, 'record.edit', 'fr', { gender: 'f', elided: 'no', one: 'facture' })).toBe('Modifier la facture');
  });

  it('give the settings pages their counts, choices and emphasis as messages, not concatenation', () => {
    const f = (c: Record<string, string>, k: string, lang: string, v: Record<string, unknown>) => String(new IntlMessageFormat(c[k]!, lang).format(v));
    // The verb agrees with the count; French counts 0 as singular; numbers in the language's digits.
    expect(f(en, 'settings.tokenHistory.count', 'en', { count: 1, filtered: 'yes' })).toBe('1 request matches, newest first.');
    expect(f(de, 'settings.tokenHistory.count', 'de', { count: 1234, filtered: 'yes' })).toBe('1.234 Anfragen passen, neueste zuerst.');
    expect(f(fr, 'settings.tokenHistory.count', 'fr', { count: 0, filtered: 'yes' })).toBe('0 requête correspond, les plus récentes d’abord.');
    expect(f(fr, 'settings.tokenHistory.chartLabel', 'fr', { total: 0, max: 0, day: '' })).toBe('Requêtes par jour sur les 30 derniers jours\u00a0: aucune.');
    expect(f(en, 'settings.tokens.revoked', 'en', { count: 2 })).toBe('Revoked 2 tokens. They stop working immediately.');
    expect(f(de, 'settings.people.roleSaved', 'de', { name: 'Vera', role: 'viewer' })).toBe('Vera ist jetzt Betrachter.');
    expect(f(fr, 'settings.webhooks.logHint', 'fr', { canWrite: 'no' })).toBe('Les événements de cette entreprise apparaissent ici à mesure qu’ils sont envoyés.');
    // No markup in the catalogues: a bold name is a value the page renders, which t() keeps as a part.
    for (const [lang, c] of Object.entries({ en, de, fr })) for (const [key, text] of Object.entries(c)) expect(text, `${lang} ${key}`).not.toMatch(/<\/?[a-z]/i);
    const part = { type: 'strong', props: { children: 'Sprachen GmbH' } };
    lib.setLanguage('de', 'de-DE', de);
    try {
      expect(lib.t('settings.people.lead', { company: part })).toEqual(['Die Personen, die in ', part, ' arbeiten, und ihre Rollen.']);
      expect(lib.t('settings.tokens.selected', { count: 3 })).toBe('3 ausgewählt');
    } finally {
      lib.setLanguage('en', 'en', en);
    }
  });
});

describe('the page’s formatter: the catalogues parsed on the server, intl-messageformat without its parser', () => {
  it('is intl-messageformat bundled with the parser’s no-parser.js, as scripts/app-formatter.ts writes it (run `npx tsx scripts/app-formatter.ts` after an update)', async () => {
    for (const [file, text] of Object.entries(await formatterFiles())) expect(readFileSync(join(TARGET_DIR, file), 'utf8'), file).toBe(text);
    const bundle = readFileSync(join(TARGET_DIR, 'intl-messageformat.js'), 'utf8');
    // One module with no imports (the page preloads it alone), of the no-parser build: a string cannot be formatted.
    expect(bundle).not.toMatch(/(^|[;}\n])\s*import\s*[{"'*\w]/);
    expect(bundle.length).toBeLessThan(12 * 1024);
    expect(() => new PageFormat('{count, plural, one {# line} other {# lines}}', 'en')).toThrow(/uncompiled message/);
  });

  // Values that take every branch of a message: each option of a select, plural counts in each
  // language's categories (French 0 and 1 are "one", 21 is "other" in all three), numbers, text.
  const valuesFor = (ast: MessageAst) => {
    const options = new Map<string, unknown[]>();
    const walk = (els: MessageAst) => {
      for (const el of els) {
        if (el.type === 1) options.set(el.value, ['Acme <b>&</b> {x}']);
        if (el.type === 2) options.set(el.value, [1234.5, 0, -3]);
        if (el.type === 3 || el.type === 4) options.set(el.value, [new Date(Date.UTC(2026, 2, 5, 14, 30))]);
        if (el.type === 5) options.set(el.value, Object.keys(el.options));
        if (el.type === 6) options.set(el.value, [0, 1, 2, 5, 21, 1.5, 1000]);
        if (el.type === 5 || el.type === 6) for (const o of Object.values(el.options)) walk(o.value);
        if (el.type === 8) walk(el.children);
      }
    };
    walk(ast);
    const n = Math.max(1, ...[...options.values()].map((o) => o.length));
    return Array.from({ length: n }, (_, i) => Object.fromEntries([...options].map(([k, o]) => [k, o[i % o.length]])));
  };

  it('formats every message of every catalogue, from its AST, as the full library formats its text', () => {
    let checked = 0;
    for (const [lang, c] of Object.entries({ en, de, fr })) {
      const compiled = appCatalogue(lang as 'en' | 'de' | 'fr');
      expect(Object.keys(compiled).sort(), lang).toEqual(Object.keys(c).sort());
      // The locale as the page has it: a full BCP 47 tag.
      const locale = { en: 'en-GB', de: 'de-CH', fr: 'fr-FR' }[lang]!;
      for (const [key, text] of Object.entries(c)) {
        const ast = compiled[key]!;
        // As the page gets it: through JSON.
        const sent = JSON.parse(JSON.stringify(ast)) as MessageAst;
        for (const values of valuesFor(ast)) {
          expect(String(new PageFormat(sent, locale).format(values)), `${lang} ${key} ${JSON.stringify(values)}`).toBe(String(new IntlMessageFormat(text, locale).format(values)));
          checked++;
        }
      }
    }
    expect(checked).toBeGreaterThan(3 * 187);
    // Plurals, genders and numbers, by the page's formatter.
    const f = (lang: 'en' | 'de' | 'fr', k: string, v: Record<string, unknown>) => String(new PageFormat(appCatalogue(lang)[k], lang).format(v));
    expect(f('fr', 'list.count', { count: 0, one: 'facture', many: 'factures' })).toBe('0 facture');
    expect(f('de', 'list.count', { count: 1200, one: 'Rechnung', many: 'Rechnungen' })).toBe('1.200 Rechnungen');
    expect(f('fr', 'record.new', { gender: 'm', elided: 'yes', one: 'avoir' })).toBe('Nouvel avoir');
    expect(f('de', 'record.new', { gender: 'm', one: 'Kunde' })).toBe('Neuer Kunde');
  });
});

describe('the description in German and French', () => {
  const d = describeModel(model);
  // Words that are the same in every language or technical: codes of tax categories, event names, "*".
  const technical = (s: string) => /^[A-Z]{1,2}$/.test(s) || /^[a-z]+(\.[a-z_]+)+$/.test(s) || s === '*';

  it('translates every label, choice, section, action and confirmation people read', () => {
    const missing = new Set<string>();
    const seen = (s: string | undefined) => s && !technical(s) && !TERMS[s] && missing.add(s);
    const words = (v: string) => (v.replace(/_/g, ' ').charAt(0).toUpperCase() + v.replace(/_/g, ' ').slice(1));
    for (const r of d.resources) {
      seen(r.label);
      seen(r.singular);
      for (const f of [...r.fields, ...r.fields.flatMap((x) => x.of ?? [])]) {
        seen(f.label);
        seen(f.help);
        // Declared words for the values (languages named in themselves) are the same in every language.
        if (f.kind === 'enum' && !f.valueLabels) for (const v of f.values ?? []) seen(words(v));
        for (const m of f.members ?? []) seen(m.label);
      }
      for (const s of r.sections ?? []) {
        seen(s.label);
        seen(s.help);
      }
      for (const a of Object.values(r.states?.actions ?? {})) {
        seen(a.label);
        seen(a.confirm);
      }
      for (const o of r.operations) seen(o.confirm);
      if (!r.owner) expect(GENDERS[r.singular], r.singular).toBeDefined();
    }
    expect([...missing]).toEqual([]);
  });

  it('gives the translated words, the choices’ words and the nouns’ genders', () => {
    const de = translateDescription(d, 'de');
    const invoice = de.resources.find((r) => r.name === 'Invoice')!;
    expect(invoice).toMatchObject({ label: 'Rechnungen', singular: 'Rechnung', gender: 'f' });
    expect(invoice.fields.find((f) => f.name === 'status')!.valueLabels).toMatchObject({ draft: 'Entwurf', pending: 'Offen', paid: 'Bezahlt' });
    // A choice agrees with its resource's noun where the language asks it: "Facture payée".
    expect(translateDescription(d, 'fr').resources.find((r) => r.name === 'Invoice')!.fields.find((f) => f.name === 'status')!.valueLabels).toMatchObject({ paid: 'Payée', cancelled: 'Annulée', draft: 'Brouillon' });
    expect(invoice.states!.actions!.pending!.label).toBe('Ausstellen');
    const fr = translateDescription(d, 'fr');
    expect(fr.resources.find((r) => r.name === 'CreditNote')).toMatchObject({ singular: 'Avoir', gender: 'm', elided: true });
    // English is the description as built.
    expect(translateDescription(d, 'en')).toBe(d);
  });
});

describe('the language of a request', () => {
  it('is the first of Accept-Language’s (by quality) that the application has, else English', () => {
    expect(languageOf('de-DE,de;q=0.9,en;q=0.8')).toEqual({ language: 'de', locale: 'de-DE' });
    expect(languageOf('it;q=1, fr-CH;q=0.9, en;q=0.5')).toEqual({ language: 'fr', locale: 'fr-CH' });
    expect(languageOf('en;q=0.1, de;q=0.5')).toEqual({ language: 'de', locale: 'de' });
    expect(languageOf('es-ES')).toEqual({ language: 'en', locale: 'en' });
    expect(languageOf(undefined)).toEqual({ language: 'en', locale: 'en' });
    expect(languageOf('fr;q=0, <script>')).toEqual({ language: 'en', locale: 'en' });
  });

  it('account e-mails insert values as text, never as messages', () => {
    expect(accountMessage('de', 'invitationSubject', { company: "{evil} 'x'" })).toBe("Einladung zu {evil} 'x' bei Invoicing");
  });
});

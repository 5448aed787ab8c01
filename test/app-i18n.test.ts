// The languages of /app (CONTRACT §20): the three catalogues have the same keys and every message
// is valid ICU; every word the description shows people (labels, choices, confirmations, help) has
// its German and French (resources/labels.ts), and every resource noun its gender; the language
// follows Accept-Language.
import { IntlMessageFormat } from 'intl-messageformat';
import { describe, expect, it } from 'vitest';
import { describeModel } from '../http/describe.ts';
import { translateDescription } from '../http/describe-i18n.ts';
import { languageOf } from '../http/languages.ts';
import { GENDERS, TERMS } from '../resources/labels.ts';
import { model } from '../server/model.ts';
import { accountMessage } from '../server/email/account-messages.ts';

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
        if (f.kind === 'enum') for (const v of f.values ?? []) seen(words(v));
      }
      for (const s of r.sections ?? []) seen(s.label);
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

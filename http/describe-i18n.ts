// The description of /app (http/describe.ts) in a person's language (CONTRACT §20): its labels,
// help, confirmations and the words for choices, from the descriptors' catalogue
// (resources/labels.ts, keyed by the English label), with each resource's grammatical gender for
// the words the application puts around its name. English is the description as built.
import { IntlMessageFormat } from 'intl-messageformat';
import { GENDERS, TERMS } from '../resources/labels.ts';
import de from '../web/app/messages/de.js';
import en from '../web/app/messages/en.js';
import fr from '../web/app/messages/fr.js';
import type { FieldDescription, ModelDescription } from './describe.ts';
import type { Language } from './languages.ts';

/** A message parsed: the ICU AST that intl-messageformat formats (@formatjs/icu-messageformat-parser's). */
export type MessageAst = ReturnType<IntlMessageFormat['getAst']>;

const CATALOGUES: Record<Language, Record<string, string>> = { en, de, fr };

/**
 * /app's own words in `language` (web/app/messages/<language>.js) as the page gets them: each
 * message parsed to its AST, here on the server, as FormatJS's `formatjs compile --ast` does, so
 * that the browser formats them with intl-messageformat built without its parser
 * (vendor/intl-messageformat, scripts/app-formatter.ts). Parsed by
 * intl-messageformat itself, in the language (as the browser's parse was): a message that does
 * not parse fails the server's start, not a page.
 */
export function appCatalogue(language: Language): Record<string, MessageAst> {
  return Object.fromEntries(Object.entries(CATALOGUES[language]).map(([key, text]) => [key, new IntlMessageFormat(text, language).getAst()]));
}


/** Words for a value of a choice (`bank_transfer` → `Bank transfer`), as the application writes them. */
const choiceWords = (v: string) => {
  const s = v.replace(/_/g, ' ');
  return s.charAt(0).toUpperCase() + s.slice(1);
};
/** `rotateSecret` → `Rotate secret`. */
const nameWords = (v: string) => choiceWords(v.replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase());
/** A report's names as the application words them (web/app/reports.js): `days1to30` → `Days 1 to 30`. */
const reportWords = (v: string) => choiceWords(v.replace(/([a-z])([A-Z0-9])/g, '$1 $2').replace(/(\d)([a-z])/g, '$1 $2').toLowerCase());

/** The description with its words in `language` (English: as built); enum fields get `valueLabels` (value → words). */
export function translateDescription(d: ModelDescription, language: Language): ModelDescription {
  if (language === 'en') return d;
  const i = language === 'de' ? 0 : 1;
  const tr = <T extends string | undefined>(s: T): T => (s === undefined ? s : ((TERMS[s]?.[i] ?? s) as T));
  // A choice's words as they agree with the resource's noun ("Invoice|Paid" → "Payée"), else as they are.
  const choice = (singular: string, v: string) => TERMS[`${singular}|${choiceWords(v)}`]?.[i] ?? tr(choiceWords(v));
  const field = (singular: string) => (f: FieldDescription): FieldDescription => {
    const out: FieldDescription = { ...f, label: tr(f.label) };
    if (f.help) out.help = tr(f.help);
    // A field's API description shows as a form's hint: translated where the catalogue has it, else left out (it is the API's English documentation).
    if (f.description) {
      const translated = TERMS[f.description]?.[i];
      if (translated) out.description = translated;
      else delete out.description;
    }
    // Declared words for the values (the names of languages in themselves) stay as declared.
    if (f.values && f.kind === 'enum' && !f.valueLabels) out.valueLabels = Object.fromEntries(f.values.map((v) => [v, choice(singular, v)]));
    if (f.members) out.members = f.members.map((m) => ({ ...m, label: tr(m.label) }));
    if (f.of) out.of = f.of.map(field(singular));
    return out;
  };
  return {
    ...d,
    resources: d.resources.map((r) => {
      const gender = GENDERS[r.singular];
      return {
        ...r,
        label: tr(r.label),
        singular: tr(r.singular),
        ...(gender ? { gender: gender[language], ...(language === 'fr' && gender.elided ? { elided: true as const } : {}) } : {}),
        fields: r.fields.map(field(r.singular)),
        ...(r.sections ? { sections: r.sections.map((s) => ({ ...s, label: tr(s.label), ...(s.help ? { help: tr(s.help) } : {}) })) } : {}),
        ...(r.states
          ? {
              states: {
                ...r.states,
                ...(r.states.actions ? { actions: Object.fromEntries(Object.entries(r.states.actions).map(([k, a]) => [k, { ...a, label: tr(a.label), ...(a.confirm ? { confirm: tr(a.confirm) } : {}) }])) } : {}),
              },
            }
          : {}),
        operations: r.operations.map((o) => ({
          ...o,
          label: tr(o.label ?? nameWords(o.name)),
          summary: tr(o.summary),
          ...(o.confirm ? { confirm: tr(o.confirm) } : {}),
          // A panel's title and its columns' words (a client's open balance).
          ...(o.panel ? { panel: tr(o.panel) } : {}),
          ...(o.columns ? { columns: o.columns.map((c) => ({ ...c, label: tr(c.label) })) } : {}),
        })),
      };
    }),
    // A report's words (its name, query parameters, choices and columns) as `labels`, by name.
    ...(d.pages
      ? {
          pages: d.pages.map((p) => {
            const word = (name: string) => TERMS[`${p.label}|${reportWords(name)}`]?.[i] ?? tr(reportWords(name));
            return {
              ...p,
              label: tr(p.label),
              operations: p.operations.map((o) => {
                const names = [o.name, ...o.query.flatMap((q) => [q.name, ...(q.choices ?? [])]), ...o.columns.map((c) => c.name)];
                return { ...o, summary: tr(o.summary), labels: Object.fromEntries(names.map((n) => [n, word(n)])) };
              }),
            };
          }),
        }
      : {}),
  };
}

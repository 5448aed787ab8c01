// How a resource and its fields are presented to people (CONTRACT §20: declared, never guessed
// from names): labels, help, units, list columns, default order, form sections, the currency of
// amounts, the place in the navigation, and the totals a form computes as it is typed. The web
// application's description (http/describe.ts) is derived from these; the API ignores them.
import type { Condition, Fields } from './descriptor.ts';

/** A field's presentation for people: declared, never guessed from its name. */
export interface FieldPresentation {
  /** The label of its input and column ("Tax rate"); from the field's name when omitted. */
  label?: string;
  /** A sentence of help under its input. */
  help?: string;
  /** The input's autocomplete token (HTML's `autocomplete`: organization, email, postal-code…), so a browser can fill it. */
  autocomplete?: string;
  /**
   * The words for a choice's values when they are the same in every language (the names of
   * languages, each in itself: `{ de: 'Deutsch' }`); otherwise the catalogue translates them.
   */
  valueLabels?: Readonly<Record<string, string>>;
  /** Data for programs, not people (a document's kept parties as JSON): left out of the application's description. */
  hidden?: boolean;
  /**
   * The unit a decimal is typed and read in: a percentage (`19 %`), or the unit the value of
   * another field of the record chooses (a discount's value: a percentage or an amount in the
   * currency's major units, sent in minor units).
   */
  unit?: 'percent' | { field: string; values: Readonly<Record<string, 'percent' | 'money'>> };
  /** Children only: a record of them is made from this record only when it meets this (payments of an issued invoice). */
  addWhen?: Condition;
  /**
   * A new record's value from the company's profile (`{ company: 'defaultTerms' }`), or, with
   * `addDaysTo`, that many days after another date field of the record (a due date).
   */
  defaultFrom?: { company: string; addDaysTo?: string };
}

/** A resource's presentation for people (Payload's `useAsTitle`/`defaultColumns`, API Platform Admin's declared fields). */
export interface ResourcePresentation<F extends Fields = Fields> {
  /** The field that names a record (links, titles, pickers, search); the id when omitted. */
  title?: keyof F & string;
  /** The list's columns, in order; the title, then the filtered and sorted fields when omitted. */
  columns?: readonly (keyof F & string)[];
  /** The list's order when none is asked for ("newest first": `{ field: 'createdAt', dir: 'desc' }`). */
  order?: { field: (keyof F & string) | 'createdAt'; dir: 'asc' | 'desc' };
  /** The form's sections, in order, with a sentence of help each may have; fields in none come after them. */
  sections?: readonly { label: string; help?: string; fields: readonly (keyof F & string)[] }[];
  /**
   * The field holding the currency of the record's amounts, and the reference whose record gives
   * it while the record is made (an invoice's client's currency, a payment's invoice's).
   */
  currency?: { field: keyof F & string; from?: keyof F & string };
  /**
   * Where it is in the navigation: the business's work, the Settings group (developer resources),
   * or none (described, but reached from pages of its own: the API tokens, the people).
   */
  group?: 'business' | 'settings' | 'none';
  /** Found by the application's search box, by its title. */
  search?: boolean;
  /** The form totals as it is typed, by one of the rules the application shares with the server. */
  totals?: RulePresentation;
}

/**
 * A form that computes as it is typed (CONTRACT §20) with a rule the application shares with the
 * server: `rule` names the shared module the application loads; the other members are that
 * rule's parameters (the fields it reads and fills), declared with the rule (resources/) and
 * handed to the application as they are: the engine does not read them.
 */
export interface RulePresentation {
  readonly rule: string;
  readonly [param: string]: unknown;
}

// Collection filters and orders as SQL. Values go into the statement through `bind`, which names
// them as placeholders, so that a statement is compiled once per shape (see `conditionShape`).
import { and, asc, desc, eq, gt, gte, ilike, inArray, lt, lte, or, sql, type SQL } from 'drizzle-orm';
import { tieBreak, type Condition, type Order } from '../query.ts';
import type { AnyTable } from '../tables.ts';
import { hasKeys, partKeys, valueKeys } from '../trigrams.ts';

/** Turns a value into what the statement carries (a named placeholder). */
export type Bind = (v: unknown) => unknown;

/** A text as a LIKE pattern's literal part: its backslashes, `%` and `_` escaped. */
export const escapeLike = (s: string) => s.replace(/[\\%_]/g, (c) => `\\${c}`);

/**
 * A condition's SQL over the columns of `t`. Timestamp bounds are bound as Dates. `forCount`: the
 * condition as the bounded count reads it (a partial match may look up the keys for the count and
 * walk the order for the page, engine/read/density.ts).
 */
export function conditionSql(t: AnyTable, c: Condition, bind: Bind, forCount = false): SQL | undefined {
  const col = t[c.field.name];
  const given = c.values.filter((v): v is string => v !== null);
  if (!given.length) return sql`false`;
  const values = c.field.kind === 'timestamp' ? given.map((v) => new Date(v) as unknown as string) : given;
  switch (c.op) {
    case 'partial':
      // The company's keys narrow the records, the ILIKE decides (engine/trigrams.ts).
      return or(
        ...given.map((v, i) => {
          const like = ilike(col, bind(`%${escapeLike(v)}%`) as string);
          return usesKeys(c, i, forCount) ? sql`(${valueKeys(t.companyId, col)} @> ${partKeys(sql.placeholder('company'), bind(v))} and ${like})` : like;
        }),
      );
    case 'eq':
      if (c.field.kind === 'text') return or(...values.map((v) => sql`lower(${col}) = lower(${bind(v)})`));
      return values.length === 1 ? eq(col, bind(values[0])) : inArray(col, values.map(bind));
    case 'after':
      return gte(col, bind(values[0]));
    case 'before':
      return c.field.kind === 'timestamp' && given[0]!.length === 10 ? lt(col, sql`(${bind(given[0])}::date + 1)`) : lte(col, bind(values[0]));
    case 'strictly_after':
      return c.field.kind === 'timestamp' && given[0]!.length === 10 ? gte(col, sql`(${bind(given[0])}::date + 1)`) : gt(col, bind(values[0]));
    case 'strictly_before':
      return lt(col, bind(values[0]));
  }
}

/**
 * Whether a statement must be planned with its values at every execution: one with a
 * partial-match condition (ILIKE). Its best plan depends on the part and the company (how many
 * records the company's trigram keys give, how soon a walk in order meets the matches, the count's
 * bound); a prepared statement's generic plan knows neither (CONTRACT §10).
 */
export const plannedPerValue = (text: string): boolean => / ilike /i.test(text);

/**
 * Whether the `i`th given value of a partial-match condition is looked up through the company's
 * keys, for the page or for the count: when it has some, and the density check did not find the
 * order's walk cheaper (a frequent value is found soonest by walking the collection's order and
 * filtering, engine/read/density.ts). Without a check (no `dense`), the keys.
 */
const usesKeys = (c: Condition, i: number, forCount: boolean): boolean => {
  const v = c.values.filter((x): x is string => x !== null)[i];
  if (v === undefined || !hasKeys(v)) return false;
  const page = !c.dense?.[i];
  return forCount ? (c.countKeys?.[i] ?? page) : page;
};

/** Whether a condition reads the same for the count as for the page. */
const countsAsPaged = (c: Condition): boolean => c.op !== 'partial' || c.values.filter((v) => v !== null).every((_, i) => usesKeys(c, i, true) === usesKeys(c, i, false));

/** Whether every condition reads the same for the count as for the page (one WHERE serves both). */
export const countsAsPage = (where: readonly Condition[]): boolean => where.every(countsAsPaged);

/** What makes two conditions produce the same statement text (their values aside). */
export const conditionShape = (c: Condition): string => {
  const values = c.values.filter((v) => v !== null);
  // Per value: keys for the page and the count (t), neither (s), for the count only (c), the page only (p).
  const keys = c.op === 'partial' ? values.map((_, i) => ['s', 'c', 'p', 't'][(usesKeys(c, i, false) ? 2 : 0) + (usesKeys(c, i, true) ? 1 : 0)]).join('') : '';
  return `${c.field.name}:${c.op}:${values.length}:${values.length && c.field.kind === 'timestamp' ? values[0]!.length : ''}${keys}`;
};

/** The shape of a collection read's statement: its conditions' shapes and its order. */
export const queryShape = (q: { where: readonly Condition[]; order: readonly Order[] }): string =>
  `${q.where.map(conditionShape).join(',')}|${q.order.map((o) => `${o.field}:${o.dir}`).join(',')}`;

/** The order of a collection: the requested terms, then the id, so that every order is total. */
export const orderTerms = (t: AnyTable, order: readonly Order[]): SQL[] => [...order.map((o) => (o.dir === 'desc' ? desc(t[o.field]) : asc(t[o.field]))), tieBreak(order) === 'desc' ? desc(t.id) : asc(t.id)];

/**
 * Binds values into `values` as placeholders named `<prefix>0`, `<prefix>1`, … in the order they
 * are bound. `restart` starts the numbering again, so that building a statement a second time
 * (or only binding, when its text is cached) gives every value the same name.
 */
export function placeholders(values: Record<string, unknown>, prefix = 'v'): { bind: Bind; restart(): void } {
  let n = 0;
  return {
    bind: (v) => {
      const name = `${prefix}${n++}`;
      values[name] = v;
      return sql.placeholder(name);
    },
    restart: () => void (n = 0),
  };
}

/**
 * The WHERE of a collection read: the company (placeholder `company`, which partial-match
 * conditions name too), then the conditions, their values bound into `values`; and the WHERE of
 * its bounded count, the same one unless a partial match is counted through its keys and paged by
 * walking the order (or the reverse). Each call binds them again under the same names.
 */
export function collectionWhere(t: AnyTable, where: readonly Condition[], values: Record<string, unknown>): () => { page: SQL; count: SQL } {
  const p = placeholders(values);
  const same = countsAsPage(where);
  return () => {
    p.restart();
    const company = eq(t.companyId, sql.placeholder('company'));
    const page = and(company, ...where.map((c) => conditionSql(t, c, p.bind)))!;
    return { page, count: same ? page : and(company, ...where.map((c) => conditionSql(t, c, p.bind, true)))! };
  };
}

// The statement of a compiled read (engine/graphql/compile.ts): a plan, with what the variables
// of one request made of its dynamic parts, becomes ONE SQL statement whose single value is the
// whole `data` object as JSON text, built by PostgreSQL (json_build_object over correlated
// subqueries, pages as ARRAY(subquery); the json type keeps the keys in the order of the
// selection). Pages are the windows of engine/read/window.ts, read by keyset (engine/keyset.ts)
// with their cursors computed by PostgreSQL as encodeCursor writes them.
import { sql, type SQL } from 'drizzle-orm';
import { cursorSql, orderBy, reachedWith, seekRead, seekWith } from '../../keyset.ts';
import type { ModelResource } from '../../model.ts';
import type { SliceQuery } from '../../query.ts';
import { collectionSize, countOf, pageSql, reading } from '../../read/window.ts';
import type { AnyTable } from '../../tables.ts';
import { columnOf, windowNames, type Bound, type ConnSel, type Conditions, type ObjectField, type ObjectSel, type Plan } from './plan.ts';
import { text } from './values.ts';

const UUID = '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$';
const company = sql.placeholder('company');

export function statement(plan: Plan, bound: Bound, conditions: Conditions, table: (r: ModelResource, as: string) => AnyTable): SQL {
  let aliases = 0;
  const alias = (prefix: string) => `${prefix}${aliases++}`;

  const object = (sel: ObjectSel, a: SQL): SQL =>
    sql`json_build_object(${sql.join(sel.fields.map((f) => sql`${text(f.key)}, ${objectValue(f, a)}`), sql`, `)})`;

  function objectValue(f: ObjectField, a: SQL): SQL {
    if (f.kind === 'value') return f.value(a);
    if (f.kind === 'one') {
      const b = sql.raw(alias('o'));
      return sql`(select ${object(f.object, b)} from ${sql.identifier(f.target.table)} as ${b} where ${b}."id" = ${a}.${sql.identifier(f.column)} and ${b}."company_id" = ${company})`;
    }
    if (f.kind === 'many') return connection(f.conn, { column: f.via, parent: sql`${a}."id"` });
    const i = sql.raw(alias('i'));
    const v = sql`${i}.v`;
    const items = f.items.map((x) => {
      if (x.kind === 'value') return sql`${text(x.key)}, ${x.value(v)}`;
      // Anything but a UUID string reads as no record, as the resolvers' lookup does.
      const id = sql`(${v} ->> ${text(x.name)})`;
      const b = sql.raw(alias('o'));
      const uuid = sql`(case when jsonb_typeof(${v} -> ${text(x.name)}) = 'string' and ${id} ~* ${text(UUID)} then ${id}::uuid end)`;
      return sql`${text(x.key)}, (select ${object(x.object, b)} from ${sql.identifier(x.target.table)} as ${b} where ${b}."id" = ${uuid} and ${b}."company_id" = ${company})`;
    });
    return sql`coalesce((select json_agg(json_build_object(${sql.join(items, sql`, `)}) order by ${i}.n) from jsonb_array_elements(${a}.${sql.identifier(f.column)}) with ordinality as ${i}(v, n)), '[]'::json)`;
  }

  function connection(conn: ConnSel, via?: { column: string; parent: SQL }): SQL {
    const r = conn.r;
    const q = conn.fixed ?? (bound.get(conn.n) as SliceQuery);
    const w = q.window;
    const { reverse } = reading(w);
    const names = windowNames(conn.n);
    const page = pageSql(w, (k) => sql`${sql.placeholder(names[k])}::int`);
    const bindOf = (side: 'after' | 'before') => (_: unknown, i: number) => sql.placeholder(names.position(side, i)) as unknown as SQL;
    // The records of the collection, under an alias of their own (a resource may nest itself).
    const from = (as: string, ...more: SQL[]) => {
      const t = sql.raw(as);
      const where = [sql`${t}."company_id" = ${company}`];
      if (via) where.push(sql`${t}.${sql.identifier(via.column)} = ${via.parent}`);
      where.push(...conditions(conn, q, {}, as), ...more);
      return sql`${sql.identifier(r.table)} as ${t} where ${sql.join(where, sql` and `)}`;
    };
    /** Whether records lie at or beyond a cursor on `side` (the page info past the window's cursors). */
    const past = (side: 'after' | 'before'): SQL | undefined => {
      const pos = side === 'after' ? w.before : w.after;
      if (!pos) return undefined;
      const as = alias('t');
      return reachedWith(r, table(r, as), q.order, pos, side, bindOf(side === 'after' ? 'before' : 'after'), (cond) => sql`select 1 from ${from(as, cond)}`);
    };

    // The rows of the window, read by keyset with a limit (engine/read/window.ts), numbered in
    // reading order (`__rn`) and counted (`__read`), each with its cursor.
    const as = alias('t');
    const t = sql.raw(as);
    const at = table(r, as);
    const order = sql.join(orderBy(at, q.order, reverse), sql`, `);
    // Read from the cursor the scan starts at (`after` forwards, `before` backwards); the other bounds it.
    const [start, end] = reverse ? (['before', 'after'] as const) : (['after', 'before'] as const);
    const limitBy = w[end] ? [seekWith(r, at, q.order, w[end]!, end, bindOf(end))] : [];
    const pageRows = seekRead(r, at, q.order, w[start], start, bindOf(start), reverse, sql`${sql.placeholder(names.limit)}::int`, (cond) => sql`select * from ${from(as, ...limitBy, cond)}`, t);
    const cursor = cursorSql(r, q.order, (field) => sql`${t}.${sql.identifier(columnOf(r, field))}`);
    const rows = sql`(select ${t}.*, ${cursor} as "__cursor", row_number() over (order by ${order}) as "__rn", count(*) over () as "__read" from ${pageRows}) as ${t}`;
    const keep = page.keep(sql`${t}."__rn"`, sql`${t}."__read"`);
    const read = sql`count(*)`;
    /** The kept rows' `value`s in the collection's order (or reversed), as an array. */
    const kept = (value: SQL, backwards = false) => sql`array_agg(${value} order by ${t}."__rn" ${sql.raw(reverse !== backwards ? 'desc' : 'asc')}) filter (where ${keep})`;

    const pairs: SQL[] = [];
    for (const f of conn.fields) {
      let v: SQL;
      if (f.kind === 'const') v = text(f.value);
      else if (f.kind === 'totalCount') {
        // A company's collection is sized by the counters when they can answer; children are counted.
        // Under a partial-match filter, null beyond MAX_COUNTED_MATCHES (engine/read/window.ts).
        const matching = () => sql`select 1 from ${from(alias('t'))}`;
        v = sql`(${via ? countOf(q.where, matching()) : collectionSize(r, q.where, company, matching)})::int`;
      } else if (f.kind === 'pageInfo') {
        v = sql`json_build_object(${sql.join(
          f.fields.map((p) => {
            const value = p.kind === 'const' ? text(p.value)
              : p.kind === 'startCursor' ? sql`(${kept(sql`${t}."__cursor"`)})[1]`
                : p.kind === 'endCursor' ? sql`(${kept(sql`${t}."__cursor"`, true)})[1]`
                  : p.kind === 'hasNextPage' ? page.hasNextPage(read, past('after'))
                    : page.hasPreviousPage(read, past('before'));
            return sql`${text(p.key)}, ${value}`;
          }),
          sql`, `,
        )})`;
      } else {
        const edge = sql`json_build_object(${sql.join(
          f.fields.map((x) => sql`${text(x.key)}, ${x.kind === 'const' ? text(x.value) : x.kind === 'cursor' ? sql`${t}."__cursor"` : object(x.object, t)}`),
          sql`, `,
        )})`;
        v = sql`coalesce(array_to_json(${kept(edge)}), '[]'::json)`;
      }
      pairs.push(sql`${text(f.key)}, ${v}`);
    }
    // An aggregate over the rows read (`group by ()`: one row, even when none was read).
    return sql`(select json_build_object(${sql.join(pairs, sql`, `)}) from ${rows} group by ())`;
  }

  const pairs = plan.root.map((f) => {
    if (f.kind === 'const') return sql`${text(f.key)}, ${text(f.value)}`;
    if (f.kind === 'collection') return sql`${text(f.key)}, ${connection(f.conn)}`;
    const item = f.item;
    const id = item.fixed ? item.fixed.id : (bound.get(item.n) as string | null);
    if (id === null) return sql`${text(f.key)}, null::json`;
    const a = sql.raw(alias('r'));
    return sql`${text(f.key)}, (select ${object(item.object, a)} from ${sql.identifier(item.r.table)} as ${a} where ${a}."id" = ${sql.placeholder(`i${item.n}`)} and ${a}."company_id" = ${company})`;
  });
  return sql`select json_build_object(${sql.join(pairs, sql`, `)})::text as data`;
}

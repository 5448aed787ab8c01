// The statement of a compiled read (engine/graphql/compile.ts): a plan, with what the variables
// of one request made of its dynamic parts, becomes ONE SQL statement whose single value is the
// whole `data` object as JSON text, built by PostgreSQL (json_build_object over correlated
// subqueries, pages as ARRAY(subquery); the json type keeps the keys in the order of the
// selection). Pages are the windows of engine/read/window.ts.
import { sql, type SQL } from 'drizzle-orm';
import { tieBreak, type SliceQuery, type Window } from '../../query.ts';
import { collectionSize, countedFromStart, windowBoundsSql, type WindowKey } from '../../read/window.ts';
import { columnOf, type Bound, type ConnSel, type Conditions, type ObjectField, type ObjectSel, type Plan } from './plan.ts';
import { cursor, text } from './values.ts';

const UUID = '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$';
const company = sql.placeholder('company');

export function statement(plan: Plan, bound: Bound, conditions: Conditions): SQL {
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
    // The records of the collection, under an alias of their own (a resource may nest itself).
    const from = (as: string) => {
      const t = sql.raw(as);
      const where = [sql`${t}."company_id" = ${company}`];
      if (via) where.push(sql`${t}.${sql.identifier(via.column)} = ${via.parent}`);
      where.push(...conditions(conn, q, {}, as));
      return sql`${sql.identifier(r.table)} as ${t} where ${sql.join(where, sql` and `)}`;
    };
    const w: Window = q.window;
    // Window values: literals when fixed by the document, parameters when they come from variables.
    const num = (k: WindowKey) => (conn.fixed ? sql.raw(String(w[k])) : sql`${sql.placeholder(`w${conn.n}${k}`)}::int`);
    const counted = conn.total || !countedFromStart(w);
    const c = sql.raw(alias('c'));
    let lo: SQL;
    let limit: SQL;
    if (counted) {
      lo = sql`${c}.lo`;
      limit = sql`(${c}.hi - ${c}.lo)`;
    } else {
      // Counted from the start: a plain offset and limit, and no count.
      const { lower, upper } = windowBoundsSql(w, undefined, num);
      lo = lower;
      limit = sql`(${upper} - ${lower})`;
    }
    const pairs: SQL[] = [];
    for (const f of conn.fields) {
      let v: SQL;
      if (f.kind === 'const') v = text(f.value);
      else if (f.kind === 'totalCount') v = sql`${c}.n`;
      else if (f.kind === 'pageInfo') {
        v = sql`json_build_object(${sql.join(
          f.fields.map((p) => {
            const value = p.kind === 'const' ? text(p.value)
              : p.kind === 'startCursor' ? sql`case when ${c}.hi > ${c}.lo then ${cursor(sql`${c}.lo`)} end`
                : p.kind === 'endCursor' ? sql`case when ${c}.hi > ${c}.lo then ${cursor(sql`${c}.hi - 1`)} end`
                  : p.kind === 'hasNextPage' ? sql`${c}.hi < ${c}.n`
                    : sql`(${c}.lo > 0 and ${c}.n > 0)`;
            return sql`${text(p.key)}, ${value}`;
          }),
          sql`, `,
        )})`;
      } else {
        const as = alias('t');
        const t = sql.raw(as);
        const order = sql.join([...q.order.map((o) => sql`${t}.${sql.identifier(columnOf(r, o.field))} ${sql.raw(o.dir)}`), sql`${t}."id" ${sql.raw(tieBreak(q.order))}`], sql`, `);
        const edge = sql`json_build_object(${sql.join(
          f.fields.map((x) => sql`${text(x.key)}, ${x.kind === 'const' ? text(x.value) : x.kind === 'cursor' ? cursor(sql`row_number() over (order by ${order}) - 1`) : object(x.object, t)}`),
          sql`, `,
        )})`;
        // ARRAY(subquery) keeps the subquery's order; the page's edges are built only for the
        // rows the limit lets through. row_number() numbers the rows before the offset applies:
        // it is the offset in the collection.
        v = sql`array_to_json(array(select ${edge} from ${from(as)} order by ${order} offset ${lo} limit ${limit}))`;
      }
      pairs.push(sql`${text(f.key)}, ${v}`);
    }
    const json = sql`json_build_object(${sql.join(pairs, sql`, `)})`;
    if (!counted) return json;
    const { lower, upper } = windowBoundsSql(w, sql`n`, num);
    // A company's collection is sized by the counters when they can answer; children are counted.
    const count = () => sql`(select count(*) from ${from(alias('t'))})`;
    const n = via ? count() : collectionSize(r, q.where, company, count);
    const bounds = sql`select n, ${lower} as lo, ${upper} as hi from (select ${n}::int as n) as b`;
    return sql`(select ${json} from (${bounds}) as ${c})`;
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

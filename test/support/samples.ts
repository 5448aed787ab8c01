// Valid sample input for any resource, derived from the model: every writable field gets a value
// its declaration accepts (required or not), references point at records already created in the
// same company, enums take their first value, embedded children and lists get one item. Only
// what a domain rule demands beyond the declarations is in OVERRIDES. A new resource is
// therefore seeded, and covered by the tests that use this, without new code.
import type { ScalarField } from '../../engine/descriptor.ts';
import type { ModelField, ModelResource } from '../../engine/model.ts';
import { lowerFirst } from '../../engine/names.ts';
import { model } from '../../server/model.ts';
import { call, type TestServer } from '../helpers.ts';

type Body = Record<string, unknown>;

/** Records of one company, by resource name, as IRIs (oldest first). */
export type Records = Map<string, string[]>;

/**
 * What a rule needs that the declarations cannot say. `prepare` runs before a record is created
 * and may create or change other records; it returns fields to put in the body.
 */
const OVERRIDES: Record<string, { prepare(s: Seeder): Promise<Body> }> = {
  // A payment needs a pending invoice (resources/rules/payment.ts).
  Payment: {
    async prepare(s) {
      const invoice = await s.create(model.get('Invoice'));
      const res = await s.rest('PATCH', invoice, { status: 'pending' });
      if (res.status !== 200) throw new Error(`could not issue the invoice for a payment: ${res.status} ${res.text}`);
      return { invoice };
    },
  },
  // A document link names a document by its IRI (any of three resources), expires within 120 days
  // from now, and its contact, when given, is one of the document's client's (rules/document-link.ts).
  DocumentLink: {
    async prepare(s) {
      const invoice = await s.create(model.get('Invoice'));
      return { document: invoice, contact: null, expiresAt: new Date(Date.now() + 10 * 86_400_000).toISOString() };
    },
  },
  // An e-mail needs an invoice, quote or credit note and mailboxes (resources/rules/email.ts); it
  // issues the draft invoice it sends.
  Email: {
    async prepare(s) {
      const document = await s.create(model.get('Invoice'));
      return { document, to: [`to${unique()}@example.test`], cc: [`cc${unique()}@example.test`], bcc: [], attach: ['pdf'] };
    },
  },
};

let counter = 0;
const unique = () => `${Date.now().toString(36)}${(counter++).toString(36)}`;

/** A value the field's declaration accepts; `ref` resolves a reference to an IRI. */
export function sampleScalar(d: ScalarField, name: string, ref: (target: string) => string | undefined): unknown {
  switch (d.kind) {
    case 'text': {
      if (d.format === 'email') return `s${unique()}@example.test`;
      if (d.format === 'url') return `https://example.test/${unique()}`;
      if (d.format === 'currency') return 'USD';
      if (d.format === 'country') return 'FR';
      let s = `${name} ${unique()}`;
      if (d.max !== undefined) s = s.slice(-d.max);
      while (d.min !== undefined && s.length < d.min) s += 'x';
      // A value with a rule of its own (an electronic address, an IBAN …) the generic text fails: none, unless required.
      if (d.check && d.check(d.normalise ? d.normalise(s) : s) !== null && !d.required) return null;
      return s;
    }
    case 'integer':
      return Math.min(Math.max(100, d.min ?? -Infinity), d.max ?? Infinity);
    case 'decimal': {
      let v = Math.min(Math.max(1, d.min ?? -Infinity), d.max ?? Infinity);
      if (d.above !== undefined && v <= d.above) v = d.above + 1;
      return v;
    }
    case 'enum':
      return d.values[0];
    case 'boolean':
      return d.default ?? true;
    case 'date':
      return '2026-01-15';
    case 'timestamp':
      return '2026-01-15T10:00:00.000Z';
    case 'ref':
      return ref(d.target);
  }
}

/** Fields a create body may carry: writable ones, minus sequences (they fill themselves). */
function bodyFields(r: ModelResource, mode: 'create' | 'update', nested: boolean, omit?: string): ModelField[] {
  return (mode === 'create' ? r.creatable : r.updatable).filter((f) => {
    if (nested && (r.owner?.field === f || f.name === omit)) return false;
    if (f.def.kind === 'text' && f.def.sequence) return false;
    return true;
  });
}

/** A body of sample values for `r`; `ref` picks the record a reference points at. */
export function sampleBody(r: ModelResource, ref: (target: string) => string | undefined, mode: 'create' | 'update' = 'create', nested = false, omit?: string): Body {
  const body: Body = {};
  for (const f of bodyFields(r, mode, nested, omit)) {
    const d = f.def;
    if (d.kind === 'children') {
      // Embedded (and nested) children travel in REST bodies only; one item each, without the
      // reference to the record they are written with.
      body[f.name] = [sampleBody(model.get(d.target), ref, 'create', true, d.nested ? d.via : undefined)];
    } else if (d.kind === 'textList') {
      body[f.name] = d.choices ? [d.choices(model).find((c) => c !== '*') ?? d.choices(model)[0]] : [`${f.name} ${unique()}`];
    } else if (d.kind === 'json') {
      continue;
    } else if (d.kind === 'list') {
      const item: Body = {};
      for (const [n, sub] of Object.entries(d.of)) {
        const v = sampleScalar(sub, n, ref);
        if (v !== undefined) item[n] = v;
      }
      body[f.name] = [item];
    } else {
      const v = sampleScalar(d, f.name, ref);
      if (v === undefined) {
        if (f.required) throw new Error(`${r.name}.${f.name}: no ${f.target} to refer to`);
        continue;
      }
      body[f.name] = v;
    }
  }
  return body;
}

/** The GraphQL form of a body: no embedded children (they are written through their own mutations). */
export function graphqlBody(r: ModelResource, body: Body): Body {
  const out: Body = {};
  for (const [k, v] of Object.entries(body)) if (r.byName.get(k)?.kind !== 'children') out[k] = v;
  return out;
}

/** References a resource's create body needs satisfied first (its own, and its embedded children's). */
function dependencies(r: ModelResource, seen = new Set<string>()): string[] {
  if (seen.has(r.name)) return [];
  seen.add(r.name);
  const out: string[] = [];
  for (const f of bodyFields(r, 'create', false)) {
    const d = f.def;
    if (d.kind === 'ref') out.push(d.target);
    if (d.kind === 'list') for (const sub of Object.values(d.of)) if (sub.kind === 'ref') out.push(sub.target);
    if (d.kind === 'children') out.push(...dependencies(model.get(d.target), seen));
  }
  return out.filter((n) => n !== r.name);
}

/** Resources in an order where every reference points at something created before. */
export function creationOrder(): ModelResource[] {
  const done = new Set<string>();
  const order: ModelResource[] = [];
  const visit = (r: ModelResource, path: string[]) => {
    if (done.has(r.name)) return;
    if (path.includes(r.name)) throw new Error(`reference cycle: ${[...path, r.name].join(' → ')}`);
    for (const dep of dependencies(r)) visit(model.get(dep), [...path, r.name]);
    done.add(r.name);
    order.push(r);
  };
  for (const r of model.resources) if (r.rest.has('create') || r.graphql.has('create')) visit(r, []);
  return order;
}

/** Creates records of one company through the API (REST where it can, else GraphQL). */
export class Seeder {
  readonly records: Records = new Map();
  /** What each REST create answered (JSON-LD), by the record's IRI. */
  readonly created = new Map<string, Record<string, unknown>>();

  constructor(
    readonly t: Pick<TestServer, 'url'>,
    readonly token: string,
  ) {}

  first(target: string): string | undefined {
    return this.records.get(target)?.[0];
  }

  rest(method: string, path: string, body?: unknown) {
    return call(this.t, method, path, { token: this.token, body, accept: 'application/ld+json' });
  }

  graphql(query: string, variables?: Body) {
    return call(this.t, 'POST', '/api/graphql', { token: this.token, body: { query, variables }, contentType: 'application/json' });
  }

  /** A valid create body for `r` in this company. */
  async body(r: ModelResource): Promise<Body> {
    const extra = OVERRIDES[r.name] ? await OVERRIDES[r.name]!.prepare(this) : {};
    return { ...sampleBody(r, (target) => this.first(target)), ...extra };
  }

  /** Creates one record of `r` and returns its IRI. */
  async create(r: ModelResource, body?: Body): Promise<string> {
    let input = body ?? (await this.body(r));
    let iri: string | undefined;
    if (r.rest.has('create')) {
      let res = await this.rest('POST', r.iri, input);
      // A sample body fills every optional member; one the resource's rules refuse for this
      // record (an exemption reason on a standard-rated tax) is left out.
      for (let tries = 0; !body && res.status === 422 && tries < 3; tries++) {
        const named = new Set<string>((res.body?.violations ?? []).map((v: { propertyPath: string }) => v.propertyPath.split('.')[0]));
        const optional = [...named].filter((n) => n in input && !r.byName.get(n)?.required);
        if (!optional.length || optional.length !== named.size) break;
        input = Object.fromEntries(Object.entries(input).filter(([k]) => !named.has(k)));
        res = await this.rest('POST', r.iri, input);
      }
      if (res.status !== 201) throw new Error(`POST ${r.iri} ${JSON.stringify(input)}: ${res.status} ${res.text}`);
      iri = res.body['@id'];
      this.created.set(iri!, res.body);
    } else if (r.graphql.has('create')) {
      const key = lowerFirst(r.name);
      const res = await this.graphql(`mutation($input: create${r.name}Input!) { create${r.name}(input: $input) { ${key} { id } } }`, { input: graphqlBody(r, input) });
      iri = res.body?.data?.[`create${r.name}`]?.[key]?.id;
      if (!iri) throw new Error(`create${r.name} ${JSON.stringify(input)}: ${res.status} ${res.text}`);
    } else throw new Error(`${r.name} cannot be created`);
    this.records.set(r.name, [...(this.records.get(r.name) ?? []), iri!]);
    return iri!;
  }

  /** One record of every creatable resource (and whatever their rules needed on the way). */
  async seedAll(): Promise<Records> {
    for (const r of creationOrder()) await this.create(r);
    return this.records;
  }
}

/** Every IRI that a (nested) JSON value mentions. */
export function irisIn(value: unknown, out = new Set<string>()): Set<string> {
  if (typeof value === 'string') {
    if (/^\/api\/[a-z-]+\/[0-9a-f-]{36}$/i.test(value)) out.add(value.toLowerCase());
  } else if (Array.isArray(value)) for (const v of value) irisIn(v, out);
  else if (value && typeof value === 'object') for (const v of Object.values(value)) irisIn(v, out);
  return out;
}

// The Hydra API documentation (`/api/docs.jsonld`, CONTRACT §22), generated from the model as
// API Platform 4's DocumentationNormalizer writes it (src/Hydra/Serializer/DocumentationNormalizer.php):
// a `hydra:Class` per resource with its `hydra:supportedProperty` (range: an XSD type or the
// related class; required, readable, writeable) and `hydra:supportedOperation`, the `Entrypoint`
// class whose properties are the collections with their collection operations, and the
// `ConstraintViolation`, `ConstraintViolationList` and `Error` classes. The JSON-LD contexts'
// `@vocab` (formats/jsonld.ts) is this document's IRI plus `#`, so a record's `@type` `Client`
// and a member `Client/name` expand to the `#Client` class and its `#Client/name` property here.
// Names no resource: everything comes from the model.
import type { Model, ModelField, ModelOperation, ModelResource } from '../engine/model.ts';
import { recordOutput } from '../engine/model.ts';
import { fieldSchema, scalarSchema } from '../engine/json-schemas.ts';
import { lowerFirst } from '../engine/names.ts';
import { nameFieldOf, SCHEMA_NAME, shownFields } from './present.ts';
import { documentShape } from './types.ts';

/** Where the documentation is served, relative to the host. */
export const HYDRA_DOCS_PATH = '/api/docs.jsonld';
export const API_DOCUMENTATION_REL = 'http://www.w3.org/ns/hydra/core#apiDocumentation';

// The terms of the Hydra context (http://www.w3.org/ns/hydra/context.jsonld) this document uses,
// inlined: a client expands it with no request to the outside.
const HYDRA_CONTEXT = {
  hydra: 'http://www.w3.org/ns/hydra/core#',
  rdf: 'http://www.w3.org/1999/02/22-rdf-syntax-ns#',
  rdfs: 'http://www.w3.org/2000/01/rdf-schema#',
  xsd: 'http://www.w3.org/2001/XMLSchema#',
  owl: 'http://www.w3.org/2002/07/owl#',
  schema: 'https://schema.org/',
  'hydra:entrypoint': { '@type': '@id' },
  expects: { '@id': 'hydra:expects', '@type': '@vocab' },
  returns: { '@id': 'hydra:returns', '@type': '@vocab' },
  expectsHeader: 'hydra:expectsHeader',
  headerName: 'hydra:headerName',
  possibleValue: 'hydra:possibleValue',
  label: 'rdfs:label',
  'owl:allValuesFrom': { '@type': '@id' },
  'owl:onProperty': { '@type': '@id' },
};

type Json = Record<string, unknown>;

/** What the documentation covers: the entrypoint's model, and models of other /api routes. */
export interface HydraModels {
  /** The model whose collections the entrypoint lists. */
  readonly entrypoint: Model;
  /** Models of other routes under /api (their resources get classes, not entrypoint links). */
  readonly others?: readonly Model[];
}

const XSD: Partial<Record<string, string>> = {
  text: 'xsd:string',
  enum: 'xsd:string',
  textList: 'xsd:string',
  integer: 'xsd:integer',
  decimal: 'xsd:decimal',
  boolean: 'xsd:boolean',
  date: 'xsd:date',
  timestamp: 'xsd:dateTime',
};

/** Whether a body may carry the resource's fields: it has a write, or its owner writes it (lines). */
const writes = (r: ModelResource) => r.rest.has('create') || r.rest.has('update') || r.rest.has('replace') || Boolean(r.owner);

/** Required in a create body: no default, no sequence (as in the write schemas). */
function requiredOnCreate(f: ModelField): boolean {
  const def = f.def as { default?: unknown; sequence?: unknown };
  return f.required && !f.readOnly && def.default === undefined && !def.sequence;
}

function describe(model: Model, r: ModelResource, f: ModelField): string {
  if (f.def.description) return f.def.description;
  if (f.kind === 'children') return `The ${lowerFirst(f.target!)} items of the ${r.name}, embedded.`;
  const s = (f.kind === 'list' || f.kind === 'json' || f.kind === 'textList' ? fieldSchema(model, f, 'read') : scalarSchema(model, f.def as never)) as { description?: string };
  return s.description ?? `The ${f.name} of the ${r.name}.`;
}

function property(r: ModelResource, name: string, o: { iri?: string; range?: string; link?: boolean; single?: boolean; required: boolean; readable: boolean; writeable: boolean; description: string }): Json {
  const p: Json = { '@id': o.iri ?? `#${r.name}/${name}`, '@type': o.link ? 'hydra:Link' : 'rdf:Property', domain: `#${r.name}`, label: name };
  if (o.single) p['owl:maxCardinality'] = 1;
  if (o.range) p.range = o.range;
  return {
    '@type': 'hydra:SupportedProperty',
    'hydra:property': p,
    'hydra:title': name,
    'hydra:required': o.required,
    'hydra:readable': o.readable,
    'hydra:writeable': o.writeable,
    'hydra:description': o.description,
  };
}

/** The supported properties of a resource: every member of its records (`id` aside, as API Platform leaves out identifiers). */
function properties(model: Model, r: ModelResource): Json[] {
  const out: Json[] = [];
  const writable = writes(r);
  const named = nameFieldOf(r);
  for (const f of shownFields(r)) {
    const relation = f.kind === 'ref' || f.kind === 'children';
    out.push(
      property(r, f.name, {
        ...(f === named ? { iri: SCHEMA_NAME } : {}),
        range: relation ? `#${f.target}` : XSD[f.kind],
        link: f.kind === 'ref',
        single: f.kind === 'ref',
        required: requiredOnCreate(f),
        readable: true,
        writeable: writable && !f.readOnly && (r.creatable.includes(f) || r.updatable.includes(f)),
        description: describe(model, r, f),
      }),
    );
  }
  for (const [name, what] of [['createdAt', 'created'], ['updatedAt', 'last changed']] as const) {
    out.push(property(r, name, { range: 'xsd:dateTime', required: false, readable: true, writeable: false, description: `When the ${r.name} was ${what}.` }));
  }
  return out;
}

const PATCH_TYPES = ['application/merge-patch+json', 'application/json', 'application/vnd.api+json'];

/** One CRUD operation, as getHydraOperation writes it. */
function crud(r: ModelResource, method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE', collection = false): Json {
  const n = r.name;
  const op: Json = { '@type': ['hydra:Operation'], 'hydra:method': method, 'hydra:title': `${method.toLowerCase()}${n}${collection ? 'Collection' : ''}` };
  switch (method) {
    case 'GET':
      (op['@type'] as string[]).push('schema:FindAction');
      op['hydra:description'] = collection ? `Retrieves the collection of ${n} resources.` : `Retrieves a ${n} resource.`;
      op.returns = collection ? 'hydra:Collection' : n;
      break;
    case 'POST':
      (op['@type'] as string[]).push('schema:CreateAction');
      op['hydra:description'] = `Creates a ${n} resource.`;
      op.expects = n;
      op.returns = n;
      break;
    case 'PUT':
      (op['@type'] as string[]).push('schema:ReplaceAction');
      op['hydra:description'] = `Replaces the ${n} resource.`;
      op.expects = n;
      op.returns = n;
      break;
    case 'PATCH':
      op['@type'] = 'hydra:Operation';
      op['hydra:description'] = `Updates the ${n} resource.`;
      op.expects = n;
      op.returns = n;
      op.expectsHeader = [{ headerName: 'Content-Type', possibleValue: PATCH_TYPES }];
      break;
    case 'DELETE':
      (op['@type'] as string[]).push('schema:DeleteAction');
      op['hydra:description'] = `Deletes the ${n} resource.`;
      op.returns = 'owl:Nothing';
      break;
  }
  return sorted(op);
}

/** A declared operation (engine/declared.ts): what it expects and returns, by class or type name. */
function declared(model: Model, r: ModelResource, op: ModelOperation): Json {
  const target = recordOutput(model, r, op);
  const shape = documentShape(r, op);
  const returns = target ? target.name : shape?.many ? 'hydra:Collection' : shape?.objects ? shape.type : 'owl:Thing';
  return sorted({
    '@type': ['hydra:Operation', op.method === 'GET' ? 'schema:FindAction' : 'schema:Action'],
    'hydra:method': op.method,
    'hydra:title': op.name,
    'hydra:description': op.def.summary,
    ...(op.method === 'POST' ? { expects: op.def.input ? 'owl:Thing' : 'owl:Nothing' } : {}),
    ...(op.def.query ? { 'hydra:search': search(op) } : {}),
    returns,
  });
}

/** A declared operation's query parameters (its `query` schema, as the runner checks them) as an IRI template. */
function search(op: ModelOperation): Json {
  const schema = op.def.query as { properties?: Record<string, { description?: string }>; required?: string[] };
  const names = Object.keys(schema.properties ?? {});
  return {
    '@type': 'hydra:IriTemplate',
    'hydra:template': `${op.template}{?${names.join(',')}}`,
    'hydra:variableRepresentation': 'BasicRepresentation',
    'hydra:mapping': names.map((n) => ({
      '@type': 'hydra:IriTemplateMapping',
      'hydra:variable': n,
      'hydra:required': (schema.required ?? []).includes(n),
      ...(schema.properties![n]!.description ? { 'hydra:description': schema.properties![n]!.description } : {}),
    })),
  };
}

// API Platform sorts an operation's keys (ksort).
const sorted = (o: Json): Json => Object.fromEntries(Object.entries(o).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));

/** The class of a resource: its properties, and the operations on one record. */
function resourceClass(model: Model, r: ModelResource): Json {
  const ops: Json[] = [];
  if (r.rest.has('read')) ops.push(crud(r, 'GET'));
  if (r.rest.has('replace')) ops.push(crud(r, 'PUT'));
  if (r.rest.has('update')) ops.push(crud(r, 'PATCH'));
  if (r.rest.has('delete')) ops.push(crud(r, 'DELETE'));
  for (const op of r.operations) if (op.on === 'item') ops.push(declared(model, r, op));
  return {
    '@id': `#${r.name}`,
    '@type': 'hydra:Class',
    'hydra:title': r.name,
    'hydra:description': r.description,
    'hydra:supportedProperty': properties(model, r),
    'hydra:supportedOperation': ops,
  };
}

/** The operations on a collection (listed on its entrypoint property). */
function collectionOperations(model: Model, r: ModelResource): Json[] {
  const ops: Json[] = [];
  if (r.rest.has('list')) ops.push(crud(r, 'GET', true));
  if (r.rest.has('create')) ops.push(crud(r, 'POST'));
  for (const op of r.operations) if (op.on === 'collection') ops.push(declared(model, r, op));
  return ops;
}

function entrypointClass(model: Model): Json {
  const props: Json[] = [];
  for (const r of model.resources) {
    if (!r.rest.has('list') || r.singleton) continue;
    props.push({
      '@type': 'hydra:SupportedProperty',
      'hydra:property': {
        '@id': `#Entrypoint/${lowerFirst(r.name)}`,
        '@type': 'hydra:Link',
        domain: '#Entrypoint',
        'owl:maxCardinality': 1,
        range: [{ '@id': 'hydra:Collection' }, { 'owl:equivalentClass': { 'owl:onProperty': { '@id': 'hydra:member' }, 'owl:allValuesFrom': { '@id': `#${r.name}` } } }],
        'hydra:supportedOperation': collectionOperations(model, r),
      },
      'hydra:title': `get${r.name}Collection`,
      'hydra:description': `The collection of ${r.name} resources`,
      'hydra:readable': true,
      'hydra:writeable': false,
    });
  }
  return {
    '@id': '#Entrypoint',
    '@type': 'hydra:Class',
    'hydra:title': 'Entrypoint',
    'hydra:supportedProperty': props,
    'hydra:supportedOperation': { '@type': 'hydra:Operation', 'hydra:method': 'GET', 'hydra:title': 'index', 'hydra:description': 'The API Entrypoint.', returns: 'Entrypoint' },
  };
}

/** A class of fixed members (the errors), each a read-only string or integer. */
function fixedClass(name: string, description: string, members: [string, string, string][]): Json {
  return {
    '@id': `#${name}`,
    '@type': 'hydra:Class',
    'hydra:title': name,
    'hydra:description': description,
    'hydra:supportedProperty': members.map(([m, range, what]) => ({
      '@type': 'hydra:SupportedProperty',
      'hydra:property': { '@id': `#${name}/${m}`, '@type': 'rdf:Property', label: m, domain: `#${name}`, range },
      'hydra:title': m,
      'hydra:description': what,
      'hydra:required': false,
      'hydra:readable': true,
      'hydra:writeable': false,
    })),
  };
}

const PROBLEM: [string, string, string][] = [
  ['type', 'xsd:string', 'A URI reference identifying the kind of problem'],
  ['title', 'xsd:string', 'A short, human-readable summary of the problem'],
  ['status', 'xsd:integer', 'The HTTP status code'],
  ['detail', 'xsd:string', 'A human-readable explanation of this occurrence of the problem'],
];

const JSON_XSD: Record<string, string> = { string: 'xsd:string', integer: 'xsd:integer', number: 'xsd:decimal', boolean: 'xsd:boolean' };

/** The range of a member of a document's JSON Schema: an XSD type, a documented class, or none. */
function schemaRange(s: { type?: unknown; format?: string; anyOf?: unknown[]; items?: unknown; 'x-resource'?: string; const?: unknown }): string | undefined {
  if (s['x-resource']) return `#${s['x-resource']}`;
  if (Array.isArray(s.anyOf)) {
    const options = s.anyOf.map((x) => schemaRange(x as never)).filter(Boolean);
    return options.length === 1 ? options[0] : undefined;
  }
  if (s.type === 'array' && s.items) return schemaRange(s.items as never);
  const type = Array.isArray(s.type) ? s.type.find((x) => x !== 'null') : s.type ?? (typeof s.const === 'string' ? 'string' : undefined);
  if (type === 'string' && s.format === 'date-time') return 'xsd:dateTime';
  if (type === 'string' && s.format === 'date') return 'xsd:date';
  return JSON_XSD[String(type)];
}

/** A class per type of the declared operations' documents (`WebhookDelivery`), the resources' aside. */
function documentClasses(models: HydraModels, resources: ReadonlySet<string>): Json[] {
  const out = new Map<string, Json>();
  for (const model of [models.entrypoint, ...(models.others ?? [])]) {
    for (const r of model.resources) {
      for (const op of r.operations) {
        const shape = documentShape(r, op);
        if (!shape || !shape.objects || resources.has(shape.type) || out.has(shape.type)) continue;
        const schema = shape.schema as { description?: string; required?: string[]; properties?: Record<string, { description?: string }> };
        out.set(shape.type, {
          '@id': `#${shape.type}`,
          '@type': 'hydra:Class',
          'hydra:title': shape.type,
          'hydra:description': schema.description ?? op.def.summary,
          'hydra:supportedProperty': Object.entries(schema.properties ?? {}).map(([name, member]) => {
            const range = schemaRange(member as never);
            return {
              '@type': 'hydra:SupportedProperty',
              'hydra:property': { '@id': `#${shape.type}/${name}`, '@type': 'rdf:Property', label: name, domain: `#${shape.type}`, ...(range ? { range } : {}) },
              'hydra:title': name,
              'hydra:description': member.description ?? `The ${name} of the ${shape.type}.`,
              'hydra:required': (schema.required ?? []).includes(name),
              'hydra:readable': true,
              'hydra:writeable': false,
            };
          }),
          'hydra:supportedOperation': [],
        });
      }
    }
  }
  return [...out.values()];
}

/** Every resource of the models that /api serves, the embedded ones (lines) included. */
function documented(models: HydraModels): { model: Model; r: ModelResource }[] {
  const out: { model: Model; r: ModelResource }[] = [];
  const seen = new Set<string>();
  for (const model of [models.entrypoint, ...(models.others ?? [])]) {
    for (const r of model.resources) {
      if (!(r.rest.size || r.owner) || seen.has(r.name)) continue;
      seen.add(r.name);
      out.push({ model, r });
    }
  }
  return out;
}

/**
 * The ApiDocumentation, for a server reached at `base` (`https://host`): the `@vocab` is absolute,
 * as the contexts' is. `title` and `description` describe the API.
 */
export function hydraDocumentation(models: HydraModels, o: { base: string; title: string; description: string }): Json {
  const classes = documented(models);
  return {
    '@context': [HYDRA_CONTEXT, { '@vocab': `${o.base}${HYDRA_DOCS_PATH}#`, domain: { '@id': 'rdfs:domain', '@type': '@id' }, range: { '@id': 'rdfs:range', '@type': '@id' }, subClassOf: { '@id': 'rdfs:subClassOf', '@type': '@id' } }],
    '@id': HYDRA_DOCS_PATH,
    '@type': 'hydra:ApiDocumentation',
    'hydra:title': o.title,
    'hydra:description': o.description,
    'hydra:entrypoint': '/api',
    'hydra:supportedClass': [
      ...classes.map(({ model, r }) => resourceClass(model, r)),
      ...documentClasses(models, new Set(classes.map(({ r }) => r.name))),
      entrypointClass(models.entrypoint),
      fixedClass('Error', 'An RFC 7807 problem (application/problem+json).', PROBLEM),
      {
        ...fixedClass('ConstraintViolation', 'Unprocessable entity (422): the violations of a request body.', [
          ...PROBLEM,
          ['violations', '#ConstraintViolationList', 'The violations, one per field'],
        ]),
        subClassOf: '#Error',
      },
      fixedClass('ConstraintViolationList', 'A constraint violation List.', [
        ['propertyPath', 'xsd:string', 'The property path of the violation'],
        ['message', 'xsd:string', 'The message associated with the violation'],
        ['code', 'xsd:string', 'The code of the violation'],
      ]),
    ],
  };
}

/** The `Link` header value naming the documentation of a server reached at `base`. */
export const apiDocumentationLink = (base: string): string => `<${base}${HYDRA_DOCS_PATH}>; rel="${API_DOCUMENTATION_REL}"`;

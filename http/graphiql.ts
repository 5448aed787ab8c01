// GraphiQL for browsers at GET /api/graphql (Accept: text/html), from the server's own files:
// the `graphiql` package's UMD bundle and React 18's UMD builds (read through `readAsset`:
// server/assets.ts, from node_modules or the binary's embedded assets), under /graphiql/. The
// page needs no token; the schema documentation it shows is public like the OpenAPI document,
// and queries carry the X-API-TOKEN header typed into the headers editor.
//
// The page shares its URL with the GraphQL endpoint, which needs a token: it is a route of its
// own, constrained to requests that prefer HTML (`htmlPage`, a find-my-way constraint), so that
// it can live in the public part of /api while the endpoint lives in the guarded one.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { getNamedType, introspectionFromSchema, isLeafType, isObjectType, type GraphQLSchema } from 'graphql';
import Negotiator from 'negotiator';
import { ApiError } from '../engine/errors.ts';

export const GRAPHIQL_PREFIX = '/graphiql';

/** Reads one file of a named asset root (server/assets.ts). */
export type ReadAsset = (root: string, file: string) => Buffer;

/** URL file name → [asset root, file, media type]. */
const ASSETS: Record<string, { root: string; file: string; type: string }> = {
  'graphiql.js': { root: 'graphiql', file: 'graphiql.min.js', type: 'text/javascript; charset=utf-8' },
  'graphiql.css': { root: 'graphiql', file: 'graphiql.min.css', type: 'text/css; charset=utf-8' },
  'react.js': { root: 'react', file: 'umd/react.production.min.js', type: 'text/javascript; charset=utf-8' },
  'react-dom.js': { root: 'react-dom', file: 'umd/react-dom.production.min.js', type: 'text/javascript; charset=utf-8' },
};

/** A browser navigating to the endpoint: it prefers HTML to JSON. */
export function wantsGraphiql(req: Pick<FastifyRequest['raw'], 'method' | 'headers'>): boolean {
  if (req.method !== 'GET' && req.method !== 'HEAD') return false;
  const accept = req.headers.accept;
  if (!accept || !accept.includes('html')) return false;
  return new Negotiator({ headers: { accept } }).mediaType(['application/json', 'text/html']) === 'text/html';
}

/**
 * The route constraint `{ page: 'html' }`: matches a GET that prefers HTML to JSON. Routes without
 * it answer every other request at the same URL. Given to Fastify's `constraints` option.
 */
export const htmlPage = {
  name: 'page',
  storage() {
    const routes = new Map<string, never>();
    return { get: (k: string) => routes.get(k) ?? null, set: (k: string, v: unknown) => void routes.set(k, v as never) };
  },
  deriveConstraint: (req: FastifyRequest['raw']): string => (wantsGraphiql(req) ? 'html' : ''),
  mustMatchWhenDerived: false,
};

/** A first query for the editor: the first collection with a few of its scalar fields. */
function exampleQuery(schema: GraphQLSchema): string {
  const query = schema.getQueryType();
  for (const [name, field] of Object.entries(query?.getFields() ?? {})) {
    const conn = getNamedType(field.type);
    if (!isObjectType(conn) || !conn.name.endsWith('CursorConnection')) continue;
    const edge = getNamedType(conn.getFields().edges!.type);
    const node = isObjectType(edge) ? getNamedType(edge.getFields().node!.type) : undefined;
    if (!isObjectType(node)) continue;
    const scalars = Object.values(node.getFields()).filter((f) => isLeafType(getNamedType(f.type))).slice(0, 4).map((f) => f.name);
    return [
      '# Put your API token in the Headers tab below, then run the query (Ctrl-Enter).',
      '# The Docs button (top left) lists every query, mutation and type.',
      '{',
      `  ${name}(first: 5) {`,
      '    totalCount',
      `    edges { cursor node { ${scalars.join(' ')} } }`,
      '    pageInfo { hasNextPage endCursor }',
      '  }',
      '}',
      '',
    ].join('\n');
  }
  return '{ __typename }\n';
}

function initScript(endpoint: string, defaultQuery: string): string {
  return `(function () {
  var params = new URLSearchParams(window.location.search);
  var headers = JSON.stringify({ 'X-API-TOKEN': 'paste your API token here' }, null, 2);
  fetch(${JSON.stringify(`${GRAPHIQL_PREFIX}/schema.json`)}).then(function (r) { return r.json(); }).then(function (introspection) {
    var fetcher = GraphiQL.createFetcher({ url: ${JSON.stringify(endpoint)} });
    var root = ReactDOM.createRoot(document.getElementById('graphiql'));
    root.render(React.createElement(GraphiQL, {
      fetcher: fetcher,
      schema: introspection,
      defaultQuery: ${JSON.stringify(defaultQuery)},
      query: params.get('query') || undefined,
      variables: params.get('variables') || undefined,
      defaultHeaders: headers,
      defaultEditorToolsVisibility: 'headers',
      isHeadersEditorEnabled: true,
      shouldPersistHeaders: false
    }));
  });
})();
`;
}

function page(): string {
  return `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>GraphiQL · Invoicing API</title>
  <link rel="stylesheet" href="${GRAPHIQL_PREFIX}/graphiql.css">
  <style>html, body, #graphiql { height: 100%; margin: 0; }</style>
</head>
<body>
  <div id="graphiql">Loading GraphiQL…</div>
  <script src="${GRAPHIQL_PREFIX}/react.js"></script>
  <script src="${GRAPHIQL_PREFIX}/react-dom.js"></script>
  <script src="${GRAPHIQL_PREFIX}/graphiql.js"></script>
  <script src="${GRAPHIQL_PREFIX}/init.js"></script>
</body>
</html>
`;
}

/** The page itself, at `path` (the GraphQL endpoint's), for requests that prefer HTML. */
export function registerGraphiqlPage(app: FastifyInstance, o: { path: string }): void {
  const html = page();
  app.get(o.path, { constraints: { page: 'html' } }, async (_req, reply) =>
    reply.code(200).type('text/html; charset=utf-8').header('cache-control', 'no-cache').send(html),
  );
}

/** The files the page loads, under /graphiql/ (outside /api: no token, no rate limit). */
export function registerGraphiqlAssets(app: FastifyInstance, o: { schema: GraphQLSchema; endpoint: string; readAsset: ReadAsset }): void {
  const files = new Map<string, Buffer>();
  let schemaJson: string | undefined;
  let init: string | undefined;

  app.get<{ Params: { file: string } }>(`${GRAPHIQL_PREFIX}/:file`, async (req, reply) => {
    const { file } = req.params;
    reply.header('cache-control', 'public, max-age=3600');
    if (file === 'schema.json') {
      schemaJson ??= JSON.stringify(introspectionFromSchema(o.schema));
      return reply.type('application/json; charset=utf-8').send(schemaJson);
    }
    if (file === 'init.js') {
      init ??= initScript(o.endpoint, exampleQuery(o.schema));
      return reply.type('text/javascript; charset=utf-8').send(init);
    }
    const asset = Object.hasOwn(ASSETS, file) ? ASSETS[file] : undefined;
    if (!asset) throw ApiError.notFound(`No route found for "GET ${GRAPHIQL_PREFIX}/${file.slice(0, 100)}"`);
    let body = files.get(file);
    if (!body) {
      body = o.readAsset(asset.root, asset.file);
      files.set(file, body);
    }
    return reply.type(asset.type).send(body);
  });
}

// Generated API documentation: the OpenAPI 3.1 document at /api/docs.json (and /api/docs/json)
// built by @fastify/swagger from the descriptions each REST route carries (http/openapi.ts),
// and Swagger UI at /api/docs, served from the package's own files (server/assets.ts: from
// node_modules, or extracted from the binary). No token needed, and no rate limit: the pages
// are a plugin of their own beside /api (`registerDocs`), outside its hooks.
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import Negotiator from 'negotiator';
import type { Model } from '../engine/model.ts';
import { hydraDocumentation, HYDRA_DOCS_PATH, type HydraModels } from '../formats/hydra.ts';
import { negotiateType, type Formats } from '../formats/negotiate.ts';
import { contentTypeOf } from '../formats/types.ts';
import { baseOf, documentationLink } from './rest.ts';
import { openapiComponents, openapiTags, SECURITY_SCHEME } from './openapi.ts';

const TITLE = 'Invoicing API';
const DESCRIPTION = `Every resource of the installation, generated from its descriptors.

Authenticate with the \`X-API-TOKEN\` header (Authorize above). Responses follow \`Accept\`:
\`application/ld+json\` (JSON-LD/Hydra, the default), \`application/json\`, \`application/hal+json\`,
\`application/vnd.api+json\` (JSON:API; also \`page[page]\`, \`page[itemsPerPage]\`, \`filter[...]\` and
\`sort=a,-b\`) and \`application/xml\` (or \`text/xml\`). Errors are \`application/problem+json\`.
Money is an integer in the currency's smallest unit.`;

export interface DocsOptions {
  model: Model;
  formats: Formats;
  version: string;
  /** Component schemas and tags of routes outside the model. */
  more?: { components: Record<string, unknown>; tags: { name: string; description: string }[] };
}

/**
 * Collects the documentation of every route registered after it: call it on the root instance,
 * before the API's plugins.
 */
export async function registerOpenapi(app: FastifyInstance, o: DocsOptions): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: { title: TITLE, version: o.version, description: DESCRIPTION },
      servers: [{ url: '/', description: 'This installation' }],
      components: {
        securitySchemes: { [SECURITY_SCHEME]: { type: 'apiKey', in: 'header', name: 'X-API-TOKEN', description: 'An API token (inv_…) created in the profile or with token:create.' } },
        schemas: { ...openapiComponents(o.model, o.formats), ...o.more?.components } as never,
      },
      security: [{ [SECURITY_SCHEME]: [] }],
      tags: [...openapiTags(o.model), ...(o.more?.tags ?? [])],
    },
    // Routes document themselves in config.openapi; routes with no description at all are left out.
    transform: ({ schema, url, route }) => {
      const doc = (route.config as { openapi?: unknown } | undefined)?.openapi;
      if (doc) return { schema: doc as never, url };
      if (!schema || Object.keys(schema).length === 0) return { schema: { hide: true } as never, url };
      return { schema, url };
    },
  });
}

/**
 * Swagger UI at `<path>` and the document at `<path>.json` (Swagger UI writes its pages' links
 * from `path`, so this plugin is registered without a prefix).
 */
export async function registerDocs(app: FastifyInstance, o: { path: string; swaggerUi: { dir: string; logo: Buffer }; hydra: HydraModels }): Promise<void> {
  // The Hydra documentation (CONTRACT §22): at `<path>.jsonld`, and at `<path>` for a client that
  // prefers JSON-LD to HTML (before Swagger UI's own route, which answers the others).
  const hydra = hydraDocs(o.hydra);
  // The documentation's own responses name the Hydra documentation too, as every /api response does.
  app.addHook('onRequest', documentationLink());
  app.get(HYDRA_DOCS_PATH, { schema: { hide: true } }, async (req, reply) => {
    negotiateType(req.headers.accept, JSONLD_TYPES);
    return reply.type(contentTypeOf('application/ld+json')).send(hydra(req));
  });
  app.addHook('onRequest', async (req, reply) => {
    if (req.routeOptions.url !== o.path || (req.method !== 'GET' && req.method !== 'HEAD') || !prefersJsonld(req.headers.accept)) return;
    return reply.type(contentTypeOf('application/ld+json')).header('vary', 'Accept').send(hydra(req));
  });
  await app.register(swaggerUi, {
    routePrefix: o.path,
    uiConfig: { docExpansion: 'list', deepLinking: true, persistAuthorization: false, displayOperationId: false },
    staticCSP: true,
    // The package's static files and logo, wherever they are (not its own __dirname, which the
    // single executable does not have).
    baseDir: o.swaggerUi.dir,
    logo: { type: 'image/svg+xml', content: o.swaggerUi.logo },
  });
  // application/vnd.openapi+json: API Platform's name for it, which its clients (api-doc-parser) ask for.
  const types = ['application/json', 'application/vnd.openapi+json', 'application/vnd.oai.openapi+json'];
  app.get(`${o.path}.json`, { schema: { hide: true } }, async (req, reply) => {
    const type = negotiateType(req.headers.accept, types);
    return reply.type(contentTypeOf(type)).send(JSON.stringify(app.swagger()));
  });
}

const JSONLD_TYPES = ['application/ld+json', 'application/json'];

/** An Accept header that prefers JSON-LD to the HTML page (and names it). */
function prefersJsonld(accept: string | undefined): boolean {
  if (!accept || !accept.includes('ld+json')) return false;
  return new Negotiator({ headers: { accept } }).mediaType(['text/html', 'application/ld+json']) === 'application/ld+json';
}

/** The documentation's text for each base URL it is asked at (its @vocab is absolute), made once per base. */
function hydraDocs(models: HydraModels): (req: FastifyRequest) => string {
  const byBase = new Map<string, string>();
  return (req) => {
    const base = baseOf(req);
    let text = byBase.get(base);
    if (text === undefined) {
      text = JSON.stringify(hydraDocumentation(models, { base, title: TITLE, description: DESCRIPTION }));
      if (byBase.size < 50) byBase.set(base, text);
    }
    return text;
  };
}

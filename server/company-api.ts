// /api/company: the calling token's company profile (CONTRACT §13), in every REST format. GET for
// any role, PATCH for admins. The profile is one record per company, so its IRI is /api/company
// itself; the rules live in company.ts, shared with GraphQL and the settings page. Registered in
// the authenticated part of the /api plugin (server/api.ts), so routes are relative to its prefix;
// its JSON-LD @context is served with the others (registerContexts, companyModel).
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { TSchema } from '@sinclair/typebox';
import type { FieldValues, Principal } from '../engine/types.ts';
import { ApiError } from '../engine/errors.ts';
import { openapiComponents, operationDoc, type RouteDoc } from '../http/openapi.ts';
import type { Formats } from '../formats/negotiate.ts';
import { contentTypeOf, type Format } from '../formats/types.ts';
import { COMPANY, companyModel, readCompany, updateCompany, type CompanyProfile } from './company.ts';

export const COMPANY_PATH = COMPANY.iri;
/** The routes' URL, relative to the /api plugin's prefix. */
const ROUTE = `/${COMPANY.path}`;

const PATCH_TYPES = ['application/merge-patch+json', 'application/json', 'application/vnd.api+json'];

/** Replaces every string equal to `from` in a rendered body (the item IRI the formats derive from the id). */
function replaceString(v: unknown, from: string, to: string): unknown {
  if (v === from) return to;
  if (Array.isArray(v)) return v.map((x) => replaceString(x, from, to));
  if (v && typeof v === 'object' && !(v instanceof Date)) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, replaceString(x, from, to)]));
  return v;
}

export function registerCompanyApi(app: FastifyInstance, o: { db: Parameters<typeof readCompany>[0]; formats: Formats; principal(req: FastifyRequest): Principal }): void {
  const docs = companyDocs(o.formats);

  function send(reply: FastifyReply, format: Format, profile: CompanyProfile) {
    const rendered = format.item(companyModel, COMPANY, profile);
    const body = replaceString(rendered.body, `${COMPANY_PATH}/${profile.id}`, COMPANY_PATH);
    reply.code(200).header('content-type', contentTypeOf(format.mediaType)).header('vary', 'Accept');
    return reply.send(format.stringify ? format.stringify(body) : JSON.stringify(body));
  }

  app.get(ROUTE, { config: { openapi: docs.read } }, async (req, reply) => {
    const format = o.formats.negotiate(req.headers.accept);
    return send(reply, format, await readCompany(o.db, o.principal(req).company.id));
  });

  app.patch(ROUTE, { config: { openapi: docs.update } }, async (req, reply) => {
    const format = o.formats.negotiate(req.headers.accept);
    const p = o.principal(req);
    const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
    if (!PATCH_TYPES.includes(type)) {
      throw new ApiError(415, `The content-type "${type || '(none)'}" is not supported. Supported MIME types are "${PATCH_TYPES.join('", "')}".`);
    }
    const reader = o.formats.forContentType(type)?.readBody;
    const body = reader ? reader(companyModel, COMPANY, req.body) : req.body;
    if (body === null || typeof body !== 'object' || Array.isArray(body)) throw ApiError.badRequest('The request body must be a JSON object.');
    return send(reply, format, await updateCompany(o.db, p, body as FieldValues));
  });

  app.route({
    method: ['POST', 'PUT', 'DELETE'],
    url: ROUTE,
    handler: async (req) => {
      throw new ApiError(405, `No route found for "${req.method} ${COMPANY_PATH}": Method Not Allowed (Allow: GET, PATCH)`, { headers: { allow: 'GET, PATCH' } });
    },
  });
}

function companyDocs(formats: Formats): { read: RouteDoc; update: RouteDoc } {
  const withoutId = (doc: RouteDoc, operationId: string, summary: string): RouteDoc => {
    const { params: _params, ...rest } = doc;
    return { ...rest, operationId, summary };
  };
  const update = withoutId(operationDoc(companyModel, COMPANY, 'update', formats), 'api_company_patch', "Updates the calling token's company profile (admins only).");
  update.description = `${COMPANY.description}\n\nVAT number, IBAN (mod-97 check digits) and BIC are checked; spaces in them are removed. A member or viewer gets 403.`;
  return {
    read: withoutId(operationDoc(companyModel, COMPANY, 'read', formats), 'api_company_get', "Retrieves the calling token's company profile."),
    update,
  };
}

/** The component schemas the company operations refer to. */
export function companyComponents(formats: Formats): Record<string, TSchema> {
  return openapiComponents(companyModel, formats, [COMPANY]);
}

export const COMPANY_TAG = { name: COMPANY.name, description: COMPANY.description };

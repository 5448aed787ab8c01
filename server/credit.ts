// The `credit` operation on invoices (CONTRACT §14): `POST /api/invoices/<id>/credit` and the
// GraphQL mutation `creditInvoice(input: {id})`, both answering the draft credit note made for the
// invoice's balance (resources/rules/credit-note.ts, in one transaction through the engine's hook
// API, so validation, tenancy, numbering and events are the engine's). Kept in this one module,
// with the rule a plain function, so that it becomes a declared operation of the Invoice
// descriptor once descriptors can declare operations.
import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { GraphQLID, GraphQLInputObjectType, GraphQLNonNull, GraphQLObjectType, GraphQLSchema, GraphQLString, type GraphQLOutputType } from 'graphql';
import { ApiError } from '../engine/errors.ts';
import type { OperationDescription } from '../engine/describe.ts';
import type { GraphqlContext } from '../engine/graphql/schema.ts';
import type { Engine } from '../engine/operations.ts';
import type { FieldValues, Principal } from '../engine/types.ts';
import { content, problems } from '../http/openapi.ts';
import type { Formats } from '../formats/negotiate.ts';
import { contentTypeOf } from '../formats/types.ts';
import { creditInvoice } from '../resources/rules/credit-note.ts';

/** The operation as the web application's description names it (engine/describe.ts). */
export const CREDIT_OPERATION: OperationDescription = {
  name: 'credit',
  on: 'item',
  method: 'POST',
  path: 'credit',
  summary: "Drafts a credit note for the invoice's balance",
  roles: ['admin', 'member'],
  resource: 'CreditNote',
};

/** Runs the operation as `p` on invoice `id` (an id or an IRI): the new credit note. */
export async function credit(engine: Engine, p: Principal, id: string): Promise<FieldValues> {
  if (p.role === 'viewer') throw ApiError.forbidden('A viewer may only read.');
  const invoices = engine.model.get('Invoice');
  const bare = id.includes('/') ? id.slice(id.lastIndexOf('/') + 1) : id;
  await engine.read(p, invoices, bare); // 404 unknown, 403 another company's
  const note = await engine.transaction((tx) => creditInvoice(engine.bind(tx, p, invoices), bare));
  return engine.read(p, engine.model.get('CreditNote'), String(note.id));
}

export function registerCreditRoutes(app: FastifyInstance, o: { engine: Engine; formats: Formats; principal: (req: FastifyRequest) => Principal }): void {
  const { engine } = o;
  const notes = engine.model.get('CreditNote');
  app.post<{ Params: { id: string } }>('/invoices/:id/credit', {
    config: {
      idempotency: 'rest',
      openapi: {
        summary: "Drafts a credit note for a pending or overdue invoice's whole balance (its lines and discount when nothing was paid or credited yet)",
        tags: ['Invoice'],
        operationId: 'api_invoices_credit',
        params: Type.Object({ id: Type.String() }),
        response: { 201: { description: 'The draft credit note, linked to the invoice', content: content(o.formats, (f) => f.docs.item(notes)) }, ...problems(401, 403, 404, 406, 422) },
      },
    },
  }, async (req, reply) => {
    const format = o.formats.negotiate(req.headers.accept);
    const rec = await credit(engine, o.principal(req), req.params.id);
    const rendered = format.item(engine.model, notes, rec);
    reply.code(201).header('content-type', contentTypeOf(format.mediaType)).header('location', `${notes.iri}/${String(rec.id)}`);
    if (rendered.headers) reply.headers(rendered.headers);
    return reply.send(format.stringify ? format.stringify(rendered.body) : JSON.stringify(rendered.body));
  });
}

/** Adds `creditInvoice(input: {id, clientMutationId}): creditInvoicePayload { creditNote clientMutationId }`. */
export function withCreditInvoice(schema: GraphQLSchema, engine: Engine): GraphQLSchema {
  const config = schema.toConfig();
  const creditNote = schema.getType('CreditNote') as GraphQLOutputType;
  const input = new GraphQLInputObjectType({
    name: 'creditInvoiceInput',
    fields: { id: { type: new GraphQLNonNull(GraphQLID), description: 'The IRI of the invoice (/api/invoices/<id>).' }, clientMutationId: { type: GraphQLString } },
  });
  const payload = new GraphQLObjectType({ name: 'creditInvoicePayload', fields: { creditNote: { type: creditNote }, clientMutationId: { type: GraphQLString } } });
  const mutation = config.mutation!.toConfig();
  return new GraphQLSchema({
    ...config,
    mutation: new GraphQLObjectType({
      ...mutation,
      fields: {
        ...mutation.fields,
        creditInvoice: {
          type: payload,
          description: "Drafts a credit note for a pending or overdue invoice's whole balance.",
          args: { input: { type: new GraphQLNonNull(input) } },
          resolve: async (_root, args: { input: { id: string; clientMutationId?: string } }, ctx: GraphqlContext) => ({
            creditNote: await credit(engine, ctx.principal, args.input.id),
            clientMutationId: args.input.clientMutationId ?? null,
          }),
        },
      },
    }),
    types: config.types.filter((t) => t.name !== config.query!.name && t.name !== config.mutation!.name),
  });
}

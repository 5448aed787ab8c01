// The company profile in GraphQL: a `company` query and an `updateCompany` mutation added to the
// schema derived from the model (CONTRACT §13), in API Platform's shapes (`updateCompanyInput`,
// `updateCompanyPayload { company clientMutationId }`). Rules are company.ts's.
import {
  GraphQLID,
  GraphQLInputObjectType,
  GraphQLNonNull,
  GraphQLObjectType,
  GraphQLSchema,
  GraphQLString,
  type GraphQLFieldConfigMap,
  type GraphQLInputFieldConfigMap,
} from 'graphql';
import type { Db, Rec } from '../engine/context.ts';
import type { GraphqlContext } from '../engine/graphql/index.ts';
import { COMPANY, readCompany, updateCompany } from './company.ts';

export function withCompany(schema: GraphQLSchema, db: Db): GraphQLSchema {
  const config = schema.toConfig();
  const fields: GraphQLFieldConfigMap<Rec, GraphqlContext> = {
    id: { type: new GraphQLNonNull(GraphQLID), resolve: () => COMPANY.iri },
    _id: { type: new GraphQLNonNull(GraphQLString), resolve: (c) => c.id },
  };
  const inputFields: GraphQLInputFieldConfigMap = {};
  for (const f of COMPANY.fields) {
    const type = f.required ? new GraphQLNonNull(GraphQLString) : GraphQLString;
    fields[f.name] = { type: f.name === 'currency' ? new GraphQLNonNull(GraphQLString) : type, description: f.def.description };
    if (!f.readOnly) inputFields[f.name] = { type: GraphQLString, description: f.def.description };
  }
  const company = new GraphQLObjectType<Rec, GraphqlContext>({ name: 'Company', description: COMPANY.description, fields });
  inputFields.clientMutationId = { type: GraphQLString };
  const input = new GraphQLInputObjectType({ name: 'updateCompanyInput', fields: inputFields });
  const payload = new GraphQLObjectType({
    name: 'updateCompanyPayload',
    fields: { company: { type: company }, clientMutationId: { type: GraphQLString } },
  });

  const query = config.query!.toConfig();
  const mutation = config.mutation!.toConfig();
  return new GraphQLSchema({
    ...config,
    query: new GraphQLObjectType({
      ...query,
      fields: {
        ...query.fields,
        company: {
          type: company,
          description: "The calling token's company profile.",
          resolve: (_root, _args, ctx: GraphqlContext) => readCompany(db, ctx.principal.company.id),
        },
      },
    }),
    mutation: new GraphQLObjectType({
      ...mutation,
      fields: {
        ...mutation.fields,
        updateCompany: {
          type: payload,
          description: "Updates the calling token's company profile (admins only).",
          args: { input: { type: new GraphQLNonNull(input) } },
          resolve: async (_root, args: { input: Rec }, ctx: GraphqlContext) => {
            const { clientMutationId, ...changes } = args.input;
            // GraphQL drops absent fields; an explicit null clears the field, as in REST.
            return { company: await updateCompany(db, ctx.principal, changes), clientMutationId: clientMutationId ?? null };
          },
        },
      },
    }),
    types: config.types.filter((t) => t.name !== config.query!.name && t.name !== config.mutation!.name),
  });
}

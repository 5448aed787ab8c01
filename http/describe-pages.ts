// Pages of declared operations (issue 46): a resource that has no records, only collection GETs
// answering lists of documents (the reports), is described for the web application as a page of
// those operations: each one's address, its query parameters (dates, choices) and the columns of
// its items (money, references), so that the page is built from the description, as lists are.
import type { TSchema } from '@sinclair/typebox';
import type { Model } from '../engine/model.ts';
import type { Role } from '../engine/types.ts';

export interface OperationPage {
  name: string;
  label: string;
  /** The page's address in /app. */
  path: string;
  operations: {
    name: string;
    summary: string;
    /** The REST address. */
    url: string;
    roles: readonly Role[];
    query: { name: string; description?: string; date?: true; choices?: string[] }[];
    columns: { name: string; money?: true; refers?: string }[];
    /** The words for its names (its own, its query's, its choices', its columns'), in the description's language (http/describe-i18n.ts). */
    labels?: Record<string, string>;
  }[];
}

type S = TSchema & { properties?: Record<string, S>; anyOf?: S[]; const?: unknown; pattern?: string; description?: string; 'x-money'?: boolean; 'x-refers'?: string };

export function describeOperationPages(model: Model): OperationPage[] {
  const out: OperationPage[] = [];
  for (const r of model.resources) {
    if (r.rest.size || !r.provider) continue;
    const ops = r.operations.filter((op) => op.on === 'collection' && op.method === 'GET' && typeof op.def.output === 'object' && 'schema' in op.def.output && op.def.output.many);
    if (!ops.length) continue;
    out.push({
      name: r.name,
      label: r.plural.charAt(0).toUpperCase() + r.plural.slice(1),
      path: `/app/${r.path}`,
      operations: ops.map((op) => {
        const schema = (op.def.output as { schema: S }).schema;
        const query = Object.entries((op.def.query as S | undefined)?.properties ?? {}).map(([name, p]) => {
          const choices = p.anyOf?.map((x) => x.const).filter((x): x is string => typeof x === 'string');
          return { name, ...(p.description ? { description: p.description } : {}), ...(p.pattern?.includes('\\d{4}-') ? { date: true as const } : {}), ...(choices?.length ? { choices } : {}) };
        });
        const columns = Object.entries(schema.properties ?? {}).map(([name, p]) => ({ name, ...(p['x-money'] ? { money: true as const } : {}), ...(p['x-refers'] ? { refers: p['x-refers'] } : {}) }));
        return { name: op.name, summary: op.def.summary, url: op.template, roles: op.roles, query, columns };
      }),
    });
  }
  return out;
}

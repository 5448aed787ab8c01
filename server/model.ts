// The model and tables of this service, built once from the descriptors.
import { buildModel } from '../engine/model.ts';
import { buildTables } from '../engine/tables.ts';
import { descriptors } from '../resources/index.ts';
import { companies } from './schema.ts';

export const model = buildModel(descriptors);
/** The table that scopes every record: the company. */
export const scope = { table: companies, column: companies.id };
export const tables = buildTables(model, scope);

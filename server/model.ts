// The model and tables of this service, built once from the descriptors.
import { buildModel } from '../engine/model.ts';
import { buildTables } from '../engine/tables.ts';
import { descriptors } from '../resources/index.ts';
import { companies } from './schema.ts';

export const model = buildModel(descriptors);
export const tables = buildTables(model, { table: companies, column: companies.id });

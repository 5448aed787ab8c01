// The JSON Schemas moved to engine/json-schemas.ts (three modules were called "schema"); this
// module keeps the old import path working until every branch imports the new one.
export * from './json-schemas.ts';

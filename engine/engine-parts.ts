// What the modules of the engine share, built once by createEngine (engine/operations.ts): the
// database, the model and its tables, the statement runner, the select lists and the reads, the
// write statements and the validators.
import type { DbErrorTranslator } from './db-errors.ts';
import type { Model, ModelResource } from './model.ts';
import type { Reads } from './read/reads.ts';
import type { SelectLists } from './read/select-lists.ts';
import type { Statements } from './statements.ts';
import type { Tables } from './tables.ts';
import type { Db } from './types.ts';
import type { ResourceValidator } from './validate.ts';
import type { WriteStatements } from './write/write-statements.ts';

export interface EngineParts {
  readonly db: Db;
  readonly model: Model;
  readonly tables: Tables;
  readonly statements: Statements;
  readonly columns: SelectLists;
  readonly reads: Reads;
  readonly writeSql: WriteStatements;
  readonly translateDbError: DbErrorTranslator;
  validator(r: ModelResource): ResourceValidator;
}

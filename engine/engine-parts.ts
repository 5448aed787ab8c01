// What the modules of the engine share, built once by createEngine (engine/operations.ts): the
// database, the model and its tables, the statement runner, the select lists and the reads, the
// write statements and the validators.
import type { DbErrorTranslator } from './db-errors.ts';
import type { EventWriter } from './events.ts';
import type { Model, ModelField, ModelResource } from './model.ts';
import type { Reads } from './read/reads.ts';
import type { SelectLists } from './read/select-lists.ts';
import type { Statements } from './statements.ts';
import type { Tables } from './tables.ts';
import type { Db, FieldValues } from './types.ts';
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
  /** The events of writes (engine/events.ts): recorded with each write when there is an outbox. */
  readonly events: EventWriter;
  /**
   * The secret fields of `r` (a text field's `mask`): every read shows them masked, an update
   * never writes them back, and only the create that set one returns it whole.
   */
  secrets(r: ModelResource): readonly ModelField[];
}

/** The created record `rec` with the secrets `data` set, unmasked, and its `shownOnce` values (the create's response). */
export function revealed(parts: EngineParts, r: ModelResource, rec: FieldValues, data: FieldValues): FieldValues {
  for (const f of parts.secrets(r)) if (typeof data[f.name] === 'string') rec[f.name] = data[f.name];
  // A value shown once (a link's URL) is never stored: the create's hooks put it in `data`.
  for (const f of r.shownOnce) if (data[f.name] !== undefined) rec[f.name] = data[f.name];
  return rec;
}

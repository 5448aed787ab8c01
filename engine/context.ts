// The engine's shared types moved to engine/types.ts (the name says what the file holds); this
// module keeps the old import path working for code outside engine/.
export type { Db, FieldValues, FieldValues as Rec, Principal, RawQuery, Role, Tx } from './types.ts';

import type { HookSet } from '../../engine/hooks.ts';
import { copyClientCurrency } from './documents.ts';

export const invoiceRules: HookSet = {
  beforeWrite: copyClientCurrency,
};

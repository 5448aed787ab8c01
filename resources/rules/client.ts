import type { HookSet } from '../../engine/hooks.ts';

export const clientRules: HookSet = {
  beforeWrite(api, e) {
    // A client's currency defaults to its company's.
    if (e.op === 'create' && (e.data.currency === undefined || e.data.currency === null)) {
      e.data.currency = api.principal.company.currency;
    }
  },
};

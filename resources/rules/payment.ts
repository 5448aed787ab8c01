import type { HookSet } from '../../engine/hooks.ts';

export const paymentRules: HookSet = {
  async beforeWrite(api, e) {
    if (e.op !== 'create') return;
    const invoice = await api.lock('Invoice', String(e.data.invoice));
    if (!invoice) return;
    e.data.client = invoice.client;
    e.data.currency = invoice.currency;
  },
};

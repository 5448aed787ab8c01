// Rules shared by the documents addressed to a client (invoices, quotes, recurring invoices).
import type { HookApi, WriteEvent } from '../../engine/hooks.ts';

/** A document's currency is its client's. */
export async function copyClientCurrency(api: HookApi, e: WriteEvent): Promise<void> {
  if (e.existing && e.data.client === e.existing.client) return;
  const client = await api.read('Client', String(e.data.client));
  if (client) e.data.currency = client.currency;
}

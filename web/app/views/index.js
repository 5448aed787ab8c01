// The custom views of /app, by the name an operation's description gives (`present.view`). The
// home page shows the view registered for the first such operation; a model with none gets a
// plain home page. Adding a view: a module here, and its name on the operation's descriptor.
import { Dashboard } from './dashboard.js';

export const customViews = { dashboard: Dashboard };

/**
 * Views of actions on a record (a dialog), by the name an operation's description gives: `send`, a
 * collection operation answering what creating its resource with that input would send; `credit`,
 * an item operation whose input says what of the record's amount to take (its whole `whole`, lines,
 * or an amount). Each is loaded when it is first opened.
 */
export const actionViews = {
  send: () => import('./send.js').then((m) => m.SendDialog),
  credit: () => import('./credit.js').then((m) => m.CreditDialog),
};

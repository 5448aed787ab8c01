// The views of actions on a record, loaded with the record's view (views/record.js). The custom
// views of addresses (the dashboard) are registered in views/shell.js, which needs their names
// before any view is loaded.

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

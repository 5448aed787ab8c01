// Amounts on documents: the formatting rules live with the resources' rules (e-mail templates use
// them too): resources/rules/money.ts.
export * from '../../resources/rules/money.ts';

// The type of web/app/messages/fr.js, which the server imports (http/describe-i18n.ts `appCatalogue` parses its
// messages for the page's description module) and tests too: ICU messages by key.
declare const messages: Record<string, string>;
export default messages;

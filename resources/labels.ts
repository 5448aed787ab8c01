// The descriptors' words for people in German and French (CONTRACT §20, docs/languages.md). The
// descriptors declare English labels (or the description derives them from names: `invoiceDate`
// → "Invoice date"); this catalogue gives each English label its German and French, keyed by the
// English text as gettext keys by its msgid, so that a descriptor stays as it is written and a
// label used by several resources ("Status", "Due date") is translated once. The description of
// /app is built per language from it (http/describe-i18n.ts). A label missing here stays English.

/** English label → [German, French]. */
export const TERMS: Record<string, readonly [string, string]> = {
  // resources and pages
  Clients: ['Kunden', 'Clients'], Client: ['Kunde', 'Client'],
  Contacts: ['Kontakte', 'Contacts'], Contact: ['Kontakt', 'Contact'],
  Addresses: ['Adressen', 'Adresses'], Address: ['Adresse', 'Adresse'],
  Invoices: ['Rechnungen', 'Factures'], Invoice: ['Rechnung', 'Facture'],
  Quotes: ['Angebote', 'Devis'], Quote: ['Angebot', 'Devis'],
  'Recurring invoices': ['Serienrechnungen', 'Factures récurrentes'], 'Recurring invoice': ['Serienrechnung', 'Facture récurrente'],
  Payments: ['Zahlungen', 'Paiements'], Payment: ['Zahlung', 'Paiement'],
  Taxes: ['Steuersätze', 'Taxes'], Tax: ['Steuer', 'Taxe'],
  'Credit notes': ['Gutschriften', 'Avoirs'], 'Credit note': ['Gutschrift', 'Avoir'],
  'Invoice lines': ['Rechnungspositionen', 'Lignes de facture'], 'Invoice line': ['Rechnungsposition', 'Ligne de facture'],
  'Quote lines': ['Angebotspositionen', 'Lignes de devis'], 'Quote line': ['Angebotsposition', 'Ligne de devis'],
  'Credit note lines': ['Gutschriftpositionen', 'Lignes d’avoir'], 'Credit note line': ['Gutschriftposition', 'Ligne d’avoir'],
  Webhooks: ['Webhooks', 'Webhooks'], Webhook: ['Webhook', 'Webhook'],
  'Document links': ['Dokumentlinks', 'Liens de documents'], 'Document link': ['Dokumentlink', 'Lien de document'],
  Emails: ['E-Mails', 'E-mails'], Email: ['E-Mail', 'E-mail'],
  Reports: ['Berichte', 'Rapports'],
  'A draft credit note is made; issuing it then reduces the invoice’s balance.': ['Eine Gutschrift wird als Entwurf angelegt; ihre Ausstellung verringert dann den offenen Betrag der Rechnung.', 'Un avoir est créé en brouillon ; son émission réduit ensuite le reste dû de la facture.'],
  // field descriptions a form shows as its hint (http/describe.ts `description`); others stay out of the German and French descriptions
  "ISO 4217 code; defaults to the company's currency": ['ISO-4217-Code; ohne Angabe die Währung des Unternehmens', 'Code ISO 4217 ; par défaut la devise de l’entreprise'],
  "The buyer's electronic address (BT-49): <scheme>:<id> with a scheme of Peppol's EAS code list, e.g. 0208:0123456749": ['Die elektronische Adresse des Käufers (BT-49): <Schema>:<ID> mit einem Schema der EAS-Codeliste von Peppol, z. B. 0208:0123456749', 'L’adresse électronique de l’acheteur (BT-49) : <schéma>:<id> avec un schéma de la liste EAS de Peppol, p. ex. 0208:0123456749'],
  'ISO 3166-1 alpha-2 code': ['ISO-3166-1-Alpha-2-Code', 'Code ISO 3166-1 alpha-2'],
  'Why no VAT is charged, printed on documents, e.g. "Reverse charge: VAT to be accounted for by the recipient"': ['Warum keine USt. berechnet wird, auf den Dokumenten gedruckt, z. B. „Steuerschuldnerschaft des Leistungsempfängers“', 'Pourquoi aucune TVA n’est facturée, imprimé sur les documents, p. ex. « Autoliquidation »'],
  'The VAT category (EN 16931 BT-118): S, Z, E, AE, K, G or O': ['Die USt.-Kategorie (EN 16931 BT-118): S, Z, E, AE, K, G oder O', 'La catégorie de TVA (EN 16931 BT-118) : S, Z, E, AE, K, G ou O'],
  'Why no VAT is charged (BT-120), for E, AE, K, G and O': ['Warum keine USt. berechnet wird (BT-120), für E, AE, K, G und O', 'Pourquoi aucune TVA n’est facturée (BT-120), pour E, AE, K, G et O'],
  'The VATEX code of the exemption (BT-121), when the tax has one': ['Der VATEX-Code der Befreiung (BT-121), wenn es einen gibt', 'Le code VATEX de l’exonération (BT-121), s’il y en a un'],
  'Order within the document; appended at the end when omitted': ['Reihenfolge im Dokument; ohne Angabe am Ende', 'Ordre dans le document ; à la fin s’il est omis'],
  'Date of the quote': ['Datum des Angebots', 'Date du devis'],
  'The invoice this credit note corrects (same client)': ['Die Rechnung, die diese Gutschrift korrigiert (derselbe Kunde)', 'La facture que cet avoir corrige (même client)'],
  'http or https; private and link-local addresses are refused': ['http oder https; private und link-lokale Adressen werden abgelehnt', 'http ou https ; les adresses privées et locales au lien sont refusées'],
  'Event types to receive (GET /api/webhooks/event-types), or ["*"] for all': ['Zu empfangende Ereignistypen (GET /api/webhooks/event-types) oder ["*"] für alle', 'Types d’événements à recevoir (GET /api/webhooks/event-types), ou ["*"] pour tous'],
  'Inactive endpoints receive nothing; set back to true to resume': ['Inaktive Endpunkte empfangen nichts; wieder aktivieren, um fortzufahren', 'Les points de terminaison inactifs ne reçoivent rien ; réactivez-les pour reprendre'],
  'Whom the link is for: a contact of the document\'s client (optional)': ['Für wen der Link ist: ein Kontakt des Kunden des Dokuments (optional)', 'À qui le lien est destiné : un contact du client du document (facultatif)'],
  'admin: everything; member: reads and writes the business records; viewer: reads only': ['Administrator: alles; Mitglied: liest und schreibt die Geschäftsdaten; Betrachter: liest nur', 'administrateur : tout ; membre : lit et écrit les données ; lecteur : lit seulement'],
  'Open balance': ['Offener Saldo', 'Solde ouvert'],
  'Api tokens': ['API-Tokens', 'Jetons d’API'], 'Api token': ['API-Token', 'Jeton d’API'],
  Members: ['Mitglieder', 'Membres'], Member: ['Mitglied', 'Membre'],
  Invitations: ['Einladungen', 'Invitations'], Invitation: ['Einladung', 'Invitation'],
  'Usage count': ['Anzahl Verwendungen', 'Nombre d’utilisations'], 'Last used at': ['Zuletzt verwendet am', 'Dernière utilisation le'],
  Role: ['Rolle', 'Rôle'], Admin: ['Administrator', 'Administrateur'], Viewer: ['Betrachter', 'Lecteur'],
  Expired: ['Abgelaufen', 'Expirée'], 'Accepted at': ['Angenommen am', 'Acceptée le'],
  // fields
  Name: ['Name', 'Nom'], Website: ['Website', 'Site web'], 'VAT number': ['USt-IdNr.', 'N° de TVA'], 'Peppol ID': ['Peppol-ID', 'Identifiant Peppol'],
  'E invoice format': ['E-Rechnungsformat', 'Format de facture électronique'], 'Buyer reference': ['Käuferreferenz', 'Référence acheteur'],
  Status: ['Status', 'Statut'], Notes: ['Anmerkungen', 'Notes'], 'First name': ['Vorname', 'Prénom'], 'Last name': ['Nachname', 'Nom de famille'],
  Phone: ['Telefon', 'Téléphone'], Street1: ['Straße', 'Rue'], Street2: ['Adresszusatz', 'Complément d’adresse'], City: ['Ort', 'Ville'],
  State: ['Bundesland', 'Région'], Zip: ['PLZ', 'Code postal'], Country: ['Land', 'Pays'], 'Country name': ['Landesname', 'Nom du pays'],
  Type: ['Art', 'Type'], 'Exemption reason code': ['Befreiungsgrund (Code)', 'Code du motif d’exonération'], 'Exemption reason': ['Befreiungsgrund', 'Motif d’exonération'],
  Number: ['Nummer', 'Numéro'], 'Invoice date': ['Rechnungsdatum', 'Date de facture'], 'Due date': ['Fällig am', 'Échéance'], 'Paid at': ['Bezahlt am', 'Payée le'],
  'Discount type': ['Rabattart', 'Type de remise'], Subtotal: ['Zwischensumme', 'Sous-total'], 'Tax total': ['Steuer gesamt', 'Total des taxes'],
  'Discount total': ['Rabatt gesamt', 'Total des remises'], 'Tax groups': ['Steuergruppen', 'Groupes de taxe'], Base: ['Bemessungsgrundlage', 'Base'],
  'Amount paid': ['Bezahlt', 'Montant payé'], 'Amount credited': ['Gutgeschrieben', 'Montant crédité'], Balance: ['Offener Betrag', 'Reste dû'],
  Parties: ['Beteiligte', 'Parties'], Terms: ['Bedingungen', 'Conditions'], Lines: ['Positionen', 'Lignes'], Description: ['Beschreibung', 'Désignation'],
  Qty: ['Menge', 'Qté'], Price: ['Preis', 'Prix'], Position: ['Position', 'Position'], Net: ['Netto', 'Net'], 'Tax rate': ['Steuersatz', 'Taux de taxe'],
  'Tax type': ['Steuerart', 'Type de taxe'], 'Tax category': ['Steuerkategorie', 'Catégorie de taxe'], 'Tax exemption reason': ['Steuerbefreiungsgrund', 'Motif d’exonération'],
  'Tax exemption reason code': ['Steuerbefreiungsgrund (Code)', 'Code du motif d’exonération'], 'Valid until': ['Gültig bis', 'Valable jusqu’au'],
  Frequency: ['Häufigkeit', 'Fréquence'], Interval: ['Intervall', 'Intervalle'], 'Start date': ['Beginn', 'Date de début'], 'End date': ['Ende', 'Date de fin'],
  'Next run date': ['Nächste Ausführung', 'Prochaine exécution'], 'Last run date': ['Letzte Ausführung', 'Dernière exécution'], 'Due in days': ['Zahlungsziel (Tage)', 'Échéance (jours)'],
  Amount: ['Betrag', 'Montant'], Method: ['Zahlungsart', 'Moyen de paiement'], Reference: ['Referenz', 'Référence'], 'Issue date': ['Ausstellungsdatum', 'Date d’émission'],
  Reason: ['Grund', 'Motif'], URL: ['URL', 'URL'], Events: ['Ereignisse', 'Événements'], 'Disabled reason': ['Grund der Deaktivierung', 'Motif de désactivation'],
  Secret: ['Geheimnis', 'Secret'], Document: ['Dokument', 'Document'], 'Expires at': ['Läuft ab am', 'Expire le'], Views: ['Aufrufe', 'Consultations'],
  'Last viewed at': ['Zuletzt angesehen am', 'Dernière consultation'], Cc: ['Cc', 'Cc'], Bcc: ['Bcc', 'Cci'], Subject: ['Betreff', 'Objet'], Message: ['Nachricht', 'Message'],
  Attach: ['Anhänge', 'Pièces jointes'], Kind: ['Art', 'Genre'], Attempts: ['Versuche', 'Tentatives'], 'Last error': ['Letzter Fehler', 'Dernière erreur'],
  'Message ID': ['Message-ID', 'Message-ID'], 'Sent at': ['Gesendet am', 'Envoyé le'], Currency: ['Währung', 'Devise'], Rate: ['Satz', 'Taux'],
  Category: ['Kategorie', 'Catégorie'], Paid: ['Bezahlt', 'Payé'], Total: ['Gesamt', 'Total'], Taxable: ['Steuerpflichtig', 'Imposable'], Discount: ['Rabatt', 'Remise'],
  'Terms and notes': ['Bedingungen und Anmerkungen', 'Conditions et notes'], To: ['An', 'À'],
  // choices (enum values, as the application words them)
  Peppol: ['Peppol', 'Peppol'], Xrechnung: ['XRechnung', 'XRechnung'], Facturx: ['Factur-X', 'Factur-X'], Active: ['Aktiv', 'Actif'], Archived: ['Archiviert', 'Archivé'],
  Exclusive: ['Netto (zzgl. Steuer)', 'HT (hors taxe)'], Inclusive: ['Brutto (inkl. Steuer)', 'TTC (taxe incluse)'],
  Draft: ['Entwurf', 'Brouillon'], Pending: ['Offen', 'En attente'], Overdue: ['Überfällig', 'En retard'], Cancelled: ['Storniert', 'Annulé'],
  None: ['Keiner', 'Aucune'], Percentage: ['Prozentual', 'Pourcentage'], Fixed: ['Fester Betrag', 'Montant fixe'],
  Sent: ['Versendet', 'Envoyé'], Accepted: ['Angenommen', 'Accepté'], Declined: ['Abgelehnt', 'Refusé'], Paused: ['Pausiert', 'En pause'], Completed: ['Abgeschlossen', 'Terminé'],
  Daily: ['Täglich', 'Quotidienne'], Weekly: ['Wöchentlich', 'Hebdomadaire'], Monthly: ['Monatlich', 'Mensuelle'], Yearly: ['Jährlich', 'Annuelle'],
  Cash: ['Bar', 'Espèces'], 'Bank transfer': ['Überweisung', 'Virement'], Card: ['Karte', 'Carte'], Check: ['Scheck', 'Chèque'], Other: ['Sonstige', 'Autre'],
  Issued: ['Ausgestellt', 'Émis'], Pdf: ['PDF', 'PDF'], Ubl: ['E-Rechnung (UBL)', 'Facture électronique (UBL)'], Reminder: ['Zahlungserinnerung', 'Relance'],
  Held: ['Zurückgehalten', 'Retenu'], Queued: ['In Warteschlange', 'En file d’attente'], Failed: ['Fehlgeschlagen', 'Échec'],
  Month: ['Monat', 'Mois'], Quarter: ['Quartal', 'Trimestre'], Year: ['Jahr', 'Année'], Void: ['Storniert', 'Annulé'], Voided: ['Storniert', 'Annulé'],
  // state changes and operations
  Issue: ['Ausstellen', 'Émettre'], 'Cancel invoice': ['Rechnung stornieren', 'Annuler la facture'], 'Back to draft': ['Zurück zum Entwurf', 'Repasser en brouillon'],
  'Mark as sent': ['Als versendet markieren', 'Marquer comme envoyé'], Accept: ['Annehmen', 'Accepter'], Decline: ['Ablehnen', 'Refuser'],
  'Cancel quote': ['Angebot stornieren', 'Annuler le devis'], Activate: ['Aktivieren', 'Activer'], Pause: ['Pausieren', 'Suspendre'], Cancel: ['Beenden', 'Arrêter'],
  'Cancel credit note': ['Gutschrift stornieren', 'Annuler l’avoir'], Dashboard: ['Übersicht', 'Tableau de bord'], Credit: ['Gutschrift erstellen', 'Créer un avoir'],
  Send: ['Senden', 'Envoyer'], Import: ['Importieren', 'Importer'], Retry: ['Erneut versuchen', 'Réessayer'], Ping: ['Ping', 'Ping'],
  'Rotate secret': ['Geheimnis erneuern', 'Renouveler le secret'], Deliveries: ['Zustellungen', 'Livraisons'], 'Event types': ['Ereignistypen', 'Types d’événements'],
  // confirmations and help
  'The invoice is issued: it is owed from now on, and its client, lines and amounts can no longer change.': [
    'Die Rechnung wird ausgestellt: Sie ist ab jetzt geschuldet, und Kunde, Positionen und Beträge können sich nicht mehr ändern.',
    'La facture est émise : elle est due dès maintenant, et son client, ses lignes et ses montants ne peuvent plus changer.',
  ],
  'The invoice is cancelled: it is no longer owed, and nothing can be paid on it.': [
    'Die Rechnung wird storniert: Sie ist nicht mehr geschuldet, und auf sie kann nichts mehr gezahlt werden.',
    'La facture est annulée : elle n’est plus due, et plus rien ne peut être payé dessus.',
  ],
  'A draft credit note for the invoice’s whole balance is made; issuing it then reduces the balance.': [
    'Ein Gutschriftentwurf über den ganzen offenen Betrag der Rechnung wird erstellt; erst seine Ausstellung verringert den offenen Betrag.',
    'Un brouillon d’avoir pour tout le reste dû de la facture est créé ; c’est son émission qui réduit ensuite le reste dû.',
  ],
  'The quote is accepted: a draft invoice is made from it, and the quote can no longer change.': [
    'Das Angebot wird angenommen: Daraus wird ein Rechnungsentwurf erstellt, und das Angebot kann sich nicht mehr ändern.',
    'Le devis est accepté : un brouillon de facture en est créé, et le devis ne peut plus changer.',
  ],
  'The quote is cancelled: it can no longer be accepted unless it goes back to draft.': [
    'Das Angebot wird storniert: Es kann nicht mehr angenommen werden, außer es wird wieder zum Entwurf.',
    'Le devis est annulé : il ne peut plus être accepté, sauf s’il repasse en brouillon.',
  ],
  'The recurring invoice is cancelled for good: it makes no more invoices.': [
    'Die Serienrechnung wird endgültig beendet: Sie erstellt keine Rechnungen mehr.',
    'La facture récurrente est arrêtée définitivement : elle ne crée plus de factures.',
  ],
  'The credit note is issued: it gets its number, reduces its invoice’s balance, and can never change or be deleted.': [
    'Die Gutschrift wird ausgestellt: Sie erhält ihre Nummer, verringert den offenen Betrag ihrer Rechnung und kann nie mehr geändert oder gelöscht werden.',
    'L’avoir est émis : il reçoit son numéro, réduit le reste dû de sa facture, et ne peut plus jamais être modifié ni supprimé.',
  ],
  'The credit note is cancelled: it credits nothing unless it goes back to draft.': [
    'Die Gutschrift wird storniert: Sie schreibt nichts gut, außer sie wird wieder zum Entwurf.',
    'L’avoir est annulé : il ne crédite rien, sauf s’il repasse en brouillon.',
  ],
  'A percentage, such as 19 or 7,5.': ['Ein Prozentsatz, etwa 19 oder 7,5.', 'Un pourcentage, par exemple 19 ou 7,5.'],
  'E-mail addresses, one per line. Left empty: every contact of the client.': [
    'E-Mail-Adressen, eine pro Zeile. Leer gelassen: alle Kontakte des Kunden.',
    'Adresses e-mail, une par ligne. Laissé vide : tous les contacts du client.',
  ],
  "Left empty: the company's template for this document.": ['Leer gelassen: die Vorlage des Unternehmens für dieses Dokument.', 'Laissé vide : le modèle de l’entreprise pour ce document.'],
  'None chosen: the PDF.': ['Keine Auswahl: das PDF.', 'Aucun choix : le PDF.'],
  // The reports (their operations, query parameters and columns, as the application words their names).
  Revenue: ['Umsatz', 'Chiffre d’affaires'], Aging: ['Fälligkeiten', 'Balance âgée'], 'Group by': ['Gruppieren nach', 'Regrouper par'],
  Period: ['Zeitraum', 'Période'], Invoiced: ['In Rechnung gestellt', 'Facturé'], Credited: ['Gutgeschrieben', 'Crédité'],
  'Not due': ['Nicht fällig', 'Non échu'], 'Days 1 to 30': ['1–30 Tage', '1 à 30 jours'], 'Days 31 to 60': ['31–60 Tage', '31 à 60 jours'],
  'Days 61 to 90': ['61–90 Tage', '61 à 90 jours'], 'Over 90': ['Über 90 Tage', 'Plus de 90 jours'],
  'Reports|From': ['Von', 'Du'], 'Reports|To': ['Bis', 'Au'], 'Reports|Date': ['Stichtag', 'Date'],
  'Revenue per period and currency: invoiced, credited and paid': ['Umsatz pro Zeitraum und Währung: in Rechnung gestellt, gutgeschrieben und bezahlt', 'Chiffre d’affaires par période et par devise : facturé, crédité et payé'],
  "The tax return's figures: taxable amount and tax per currency, category and rate": ['Die Zahlen der Steuererklärung: Bemessungsgrundlage und Steuer pro Währung, Kategorie und Satz', 'Les chiffres de la déclaration de TVA : base imposable et taxe par devise, catégorie et taux'],
  'What each client owes, by days past due': ['Was jeder Kunde schuldet, nach Tagen über Fälligkeit', 'Ce que doit chaque client, par jours de retard'],
  'Imports clients from a CSV file, all rows or none': ['Importiert Kunden aus einer CSV-Datei, alle Zeilen oder keine', 'Importe des clients depuis un fichier CSV, toutes les lignes ou aucune'],
  // A choice's words for one resource, where the language makes them agree with its noun
  // ("Resource|Words"; French past participles of a feminine noun: "Facture payée").
  'Invoice|Paid': ['Bezahlt', 'Payée'], 'Invoice|Cancelled': ['Storniert', 'Annulée'],
  'Recurring invoice|Active': ['Aktiv', 'Active'], 'Recurring invoice|Cancelled': ['Beendet', 'Arrêtée'], 'Recurring invoice|Completed': ['Abgeschlossen', 'Terminée'],
};

/**
 * The grammatical gender of the resources' nouns, for the words around them ("Neue Rechnung",
 * "Neuer Kunde", "Nouvelle facture", "Nouvel avoir"): German m/f/n; French m/f, and whether the
 * French article elides ("l’avoir"). Keyed by the English singular.
 */
export const GENDERS: Record<string, { de: 'm' | 'f' | 'n'; fr: 'm' | 'f'; elided?: true }> = {
  Client: { de: 'm', fr: 'm' }, Contact: { de: 'm', fr: 'm' }, Address: { de: 'f', fr: 'f', elided: true },
  Invoice: { de: 'f', fr: 'f' }, Quote: { de: 'n', fr: 'm' }, 'Recurring invoice': { de: 'f', fr: 'f' }, Payment: { de: 'f', fr: 'm' },
  Tax: { de: 'f', fr: 'f' }, 'Credit note': { de: 'f', fr: 'm', elided: true }, 'Invoice line': { de: 'f', fr: 'f' }, 'Quote line': { de: 'f', fr: 'f' },
  'Credit note line': { de: 'f', fr: 'f' }, Webhook: { de: 'm', fr: 'm' }, 'Document link': { de: 'm', fr: 'm' }, Email: { de: 'f', fr: 'm', elided: true },
  'Api token': { de: 'n', fr: 'm' }, Member: { de: 'n', fr: 'm' }, Invitation: { de: 'f', fr: 'f', elided: true },
};

// The client's page of a document link (CONTRACT §16): server-rendered HTML with no script at all,
// made from the same data as the PDF (server/documents/data.ts, labels.ts): seller, buyer, lines,
// tax groups, totals, balance, payment details; downloads; Accept and Decline for a sent quote
// (plain POST forms); bank transfer details with the EPC QR code (inline SVG) and the card
// provider's button. The dead-link and error pages show nothing of any document.
import type { DocumentData } from '../documents/data.ts';
import type { Messages } from '../documents/messages.ts';
import { addressLines, amountIn, groupIban, messagesOf, moneyIn, totalRows } from '../documents/labels.ts';
import { formatAmount, formatMoney, plainDecimal } from '../documents/money.ts';
import { ASSETS_PREFIX } from '../web/static.ts';

const esc = (s: unknown) => String(s ?? '').replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** The policy of every /d/ response: no script at all; styles, images and forms from here only (forms also to the card provider's checkout, which a form's redirect goes to). */
export function linkCsp(formTargets: readonly string[] = []): string {
  return [
    "default-src 'none'",
    "style-src 'self'",
    "img-src 'self' data:",
    `form-action 'self'${formTargets.map((t) => ` ${t}`).join('')}`,
    "frame-ancestors 'none'",
    "base-uri 'none'",
  ].join('; ');
}

function layout(title: string, body: string, lang = 'en'): string {
  return `<!doctype html>
<html lang="${lang}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex, nofollow">
<title>${esc(title)}</title>
<link rel="icon" href="${ASSETS_PREFIX}/app/favicon.svg" type="image/svg+xml">
<link rel="stylesheet" href="${ASSETS_PREFIX}/app/client.css">
</head>
<body>
${body}
</body>
</html>
`;
}

/** 404, 410, 409, 429 and the like: a heading and a sentence, nothing of the document. */
export function messagePage(title: string, text: string, back?: { href: string; label: string }): string {
  return layout(title, `<main class="cl-message">
  <h1>${esc(title)}</h1>
  <p>${esc(text)}</p>
  ${back ? `<p><a href="${esc(back.href)}">${esc(back.label)}</a></p>` : ''}
</main>`);
}

export interface PageOptions {
  /** `/d/<token>`: the base of the downloads and forms. */
  base: string;
  /** A sent quote: Accept and Decline forms. */
  canAnswer: boolean;
  /** Bank transfer details (an invoice with a balance, the company has an IBAN). */
  transfer: { name: string; iban: string; bic: string | null; amount: number; reference: string; qrSvg: string | null } | null;
  /** The card provider's button (an invoice with a balance and a provider). */
  pay: { label: string } | null;
  /** Whether the document has an e-invoice (UBL) download. */
  ubl: boolean;
  /** A line said at the top, after an action (accepted, declined, paid). */
  notice: string | null;
}

const TITLES = { invoice: 'Invoice', quote: 'Quote', creditNote: 'Credit note' } as const;

/**
 * The downloads: what an e-mail to the client attaches (CONTRACT §19). A Factur-X client gets
 * the PDF that carries its e-invoice; an XRechnung client the PDF and the XRechnung XML; others
 * the PDF and the Peppol UBL, where the document has one.
 */
function downloads(d: DocumentData, o: Pick<PageOptions, 'base' | 'ubl'>, m: Messages): [href: string, file: string, label: string][] {
  const pdf: [string, string, string] = [`${o.base}/pdf`, `${d.number}.pdf`, m.t('downloadPdf')];
  if (!o.ubl) return [pdf];
  if (d.eInvoiceFormat === 'facturx') return [[pdf[0], pdf[1], m.t('downloadFacturx')]];
  return [pdf, [`${o.base}/ubl`, `${d.number}.xml`, m.t('einvoice', { format: d.eInvoiceFormat === 'xrechnung' ? 'XRechnung' : 'UBL' })]];
}

export function documentPage(d: DocumentData, o: PageOptions): string {
  // The document's words, dates and amounts, and the actions around it (answer, pay), in the
  // company's language (documents/messages.ts).
  const m = messagesOf(d);
  const amount = (v: number) => amountIn(m, v, d.currency);
  const money = (v: number) => moneyIn(m, v, d.currency);
  const title = m.t(d.kind);
  const seller = d.seller;
  const sellerName = String(seller.legalName ?? seller.name);
  const sellerLines = [
    ...addressLines(seller),
    ...[seller.email, seller.phone, seller.website].filter((v): v is string => typeof v === 'string' && v !== ''),
    ...(seller.vatNumber ? [m.t('vatNumber', { value: String(seller.vatNumber) })] : []),
  ];
  const contact = d.buyer.contact;
  const buyerLines = [
    ...addressLines(d.buyer.address),
    ...(contact ? [[contact.firstName, contact.lastName].filter(Boolean).join(' ')].filter(Boolean) : []),
    ...(d.buyer.vatNumber ? [m.t('vatNumber', { value: d.buyer.vatNumber })] : []),
  ];
  const meta: [string, string][] = [
    [m.t(`${d.kind}Number`), d.number],
    [m.t(d.kind === 'invoice' ? 'invoiceDate' : 'date'), m.date(d.issueDate)],
    ...(d.dueDate ? [[m.t(d.kind === 'invoice' ? 'dueDate' : 'validUntil'), m.date(d.dueDate)] as [string, string]] : []),
    ...(d.invoiceNumber ? [[m.t('creditsInvoice'), d.invoiceNumber] as [string, string]] : []),
    [m.t('currency'), d.currency],
  ];
  const rows = totalRows(d);
  const lines = d.lines.length
    ? d.lines.map((l) => `<tr>
        <td data-label="${esc(m.t('description'))}">${esc(l.description)}</td>
        <td data-label="${esc(m.t('qty'))}" class="num">${esc(m.number(plainDecimal(l.qty)))}</td>
        <td data-label="${esc(m.t('unitPrice'))}" class="num">${esc(amount(l.price))}</td>
        <td data-label="${esc(m.t('tax'))}" class="num">${l.taxRate === null ? '—' : `${esc(m.percent(plainDecimal(l.taxRate)))}${l.taxType === 'inclusive' ? ` ${esc(m.t('included'))}` : ''}`}</td>
        <td data-label="${esc(m.t('amount', { currency: d.currency }))}" class="num">${esc(amount(l.total))}</td>
      </tr>`).join('\n')
    : `<tr><td colspan="5">${esc(m.t('noLines'))}</td></tr>`;

  const headline = d.kind === 'invoice' && d.balance !== null && d.balance > 0 && ['pending', 'overdue'].includes(d.status)
    ? `<p class="cl-amount"><span class="cl-amount-label">${esc(m.t('balanceDue'))}</span> <strong>${esc(money(d.balance))}</strong>${d.dueDate ? ` <span class="muted">${esc(m.t('by', { date: m.date(d.dueDate) }))}</span>` : ''}</p>`
    : `<p class="cl-amount"><span class="cl-amount-label">${esc(m.t('total'))}</span> <strong>${esc(money(d.total))}</strong></p>`;

  const actions: string[] = [];
  if (o.canAnswer) {
    actions.push(`<section class="cl-card cl-answer" aria-labelledby="answer-h">
  <h2 id="answer-h">${esc(m.t('yourAnswer'))}</h2>
  <p>${esc(m.t('answerText', { seller: sellerName }))}</p>
  <div class="cl-buttons">
    <form method="post" action="${esc(o.base)}/accept"><button type="submit" class="cl-btn primary">${esc(m.t('acceptQuote'))}</button></form>
    <form method="post" action="${esc(o.base)}/decline"><button type="submit" class="cl-btn">${esc(m.t('decline'))}</button></form>
  </div>
</section>`);
  }
  if (o.transfer || o.pay) {
    const t = o.transfer;
    actions.push(`<section class="cl-card cl-pay" aria-labelledby="pay-h">
  <h2 id="pay-h">${esc(m.t('howToPay'))}</h2>
  ${o.pay ? `<form method="post" action="${esc(o.base)}/pay" class="cl-card-pay"><button type="submit" class="cl-btn primary wide">${esc(o.pay.label)}</button></form>` : ''}
  ${t ? `<div class="cl-transfer">
    <div>
      <h3>${esc(m.t('bankTransfer'))}</h3>
      <dl class="cl-dl">
        <dt>${esc(m.t('beneficiary'))}</dt><dd>${esc(t.name)}</dd>
        <dt>IBAN</dt><dd class="mono">${esc(groupIban(t.iban))}</dd>
        ${t.bic ? `<dt>BIC</dt><dd class="mono">${esc(t.bic)}</dd>` : ''}
        <dt>${esc(m.t('transferAmount'))}</dt><dd>${esc(money(t.amount))}</dd>
        <dt>${esc(m.t('transferReference'))}</dt><dd class="mono">${esc(t.reference)}</dd>
      </dl>
    </div>
    ${t.qrSvg ? `<figure class="cl-qr"><div role="img" aria-label="${esc(m.t('qrLabel'))}">${t.qrSvg}</div><figcaption>${esc(m.t('qrCaption'))}</figcaption></figure>` : ''}
  </div>` : ''}
</section>`);
  }

  const body = `<main class="cl-page">
  ${o.notice ? `<p class="cl-notice" role="status">${esc(o.notice)}</p>` : ''}
  <header class="cl-head">
    <div>
      ${d.logo ? `<img class="cl-logo" src="${esc(o.base)}/logo" alt="${esc(sellerName)}">` : ''}
      <p class="cl-from">${esc(sellerName)}</p>
      <h1>${esc(title)} ${esc(d.number)}</h1>
      <p class="cl-status cl-status-${esc(d.status)}">${esc(m.t('status', { status: d.status }))}</p>
    </div>
    <div class="cl-head-side">
      ${headline}
      <p class="cl-downloads">
        ${downloads(d, o, m).map(([href, file, label]) => `<a class="cl-btn" href="${esc(href)}" download="${esc(file)}">${esc(label)}</a>`).join('\n        ')}
      </p>
    </div>
  </header>
  ${actions.join('\n')}
  <article class="cl-card cl-doc" aria-label="${esc(title)} ${esc(d.number)}">
    <div class="cl-parties">
      <section aria-labelledby="from-h">
        <h2 id="from-h" class="cl-label">${esc(m.t('from'))}</h2>
        <p class="cl-party">${esc(sellerName)}</p>
        ${sellerLines.map((l) => `<p class="muted">${esc(l)}</p>`).join('')}
      </section>
      <section aria-labelledby="to-h">
        <h2 id="to-h" class="cl-label">${esc(m.t(d.kind === 'quote' ? 'preparedFor' : 'billTo'))}</h2>
        <p class="cl-party">${esc(d.buyer.name)}</p>
        ${buyerLines.map((l) => `<p class="muted">${esc(l)}</p>`).join('')}
      </section>
      <section aria-labelledby="meta-h">
        <h2 id="meta-h" class="cl-label">${esc(m.t('details'))}</h2>
        <dl class="cl-dl">${meta.map(([k, v]) => `<dt>${esc(k)}</dt><dd>${esc(v)}</dd>`).join('')}</dl>
      </section>
    </div>
    <table class="cl-lines">
      <caption class="visually-hidden">${esc(m.t('linesOf', { title: m.locale === 'en' ? title.toLowerCase() : title, number: d.number }))}</caption>
      <thead><tr><th scope="col">${esc(m.t('description'))}</th><th scope="col" class="num">${esc(m.t('qty'))}</th><th scope="col" class="num">${esc(m.t('unitPrice'))}</th><th scope="col" class="num">${esc(m.t('tax'))}</th><th scope="col" class="num">${esc(m.t('amount', { currency: d.currency }))}</th></tr></thead>
      <tbody>
      ${lines}
      </tbody>
    </table>
    <table class="cl-totals">
      <caption class="visually-hidden">${esc(m.t('totals'))}</caption>
      <tbody>
      ${rows.map((r) => `<tr${r.strong ? ' class="strong"' : ''}><th scope="row">${esc(r.label)}</th><td class="num">${esc(r.value)}</td></tr>`).join('\n')}
      </tbody>
    </table>
    ${d.reason ? `<section class="cl-text"><h2 class="cl-label">${esc(m.t('reason'))}</h2><p>${esc(d.reason)}</p></section>` : ''}
    ${d.terms ? `<section class="cl-text"><h2 class="cl-label">${esc(m.t('terms'))}</h2><p>${esc(d.terms)}</p></section>` : ''}
    ${d.notes ? `<section class="cl-text"><h2 class="cl-label">${esc(m.t('notes'))}</h2><p>${esc(d.notes)}</p></section>` : ''}
    ${typeof seller.invoiceFooter === 'string' && seller.invoiceFooter ? `<footer class="cl-footer muted">${esc(seller.invoiceFooter)}</footer>` : ''}
  </article>
</main>`;
  return layout(`${title} ${d.number} · ${sellerName}`, body, m.locale);
}

// The documents an invoice or a quote is also rendered as (CONTRACT §13): declared on their
// descriptors (`documents`), made by the server's renderers (server/documents/), which are a
// service named by the interface below.
import type { DocumentDescriptor } from '../../engine/descriptor.ts';
import type { ModelResource } from '../../engine/model.ts';
import type { Principal } from '../../engine/types.ts';

export const PDF_TYPE = 'application/pdf';
export const UBL_TYPE = 'application/vnd.oasis.ubl+xml';

export type DocumentKind = 'invoice' | 'quote' | 'creditNote';
type Rendered = Awaited<ReturnType<DocumentDescriptor['render']>>;

/** The PDFs: the PDF of §13, or the Factur-X hybrid (PDF/A-3 with the CII inside, §19). */
export type PdfProfile = 'pdf' | 'facturx';
/** The UBL e-invoices: Peppol BIS Billing 3, or XRechnung 3.0 (§19). */
export type UblProfile = 'peppol' | 'xrechnung';

/** The server's document renderers; without a profile, the one the document's client asks for. */
export interface DocumentRenderers {
  pdf(p: Principal, r: ModelResource, kind: DocumentKind, id: string, profile?: PdfProfile): Promise<Rendered>;
  /** A UBL 2.1 Invoice or CreditNote; a 422 naming what EN 16931 requires and is missing. */
  ubl(p: Principal, r: ModelResource, kind: 'invoice' | 'creditNote', id: string, profile?: UblProfile): Promise<Rendered>;
}

declare module '../../engine/descriptor.ts' {
  interface OperationServices {
    documents: DocumentRenderers;
  }
}

/**
 * The `profile` query parameter (CONTRACT §19): which document, whatever the client's
 * `eInvoiceFormat`. Each document declares the values it answers to.
 */
export const PROFILE = 'profile';

export const pdfDocument = (kind: DocumentKind): Record<string, DocumentDescriptor> => ({
  [PDF_TYPE]: {
    description: kind === 'quote'
      ? 'the quote as a PDF to send to the client'
      : `the ${kind === 'creditNote' ? 'credit note' : kind} as a PDF to send to the client; for a client whose \`eInvoiceFormat\` is \`facturx\`, the Factur-X 1.07 / ZUGFeRD 2.3 PDF/A-3b carrying the EN 16931 document as \`factur-x.xml\` (UN/CEFACT CII D16B; 422 naming what the standard requires and is missing)`,
    variants: {
      [PROFILE]: kind === 'quote'
        ? { pdf: 'the PDF' }
        : { pdf: 'the PDF alone', facturx: 'the Factur-X / ZUGFeRD PDF/A-3b with the CII document inside, profile EN 16931' },
    },
    render: (c) => c.services.documents.pdf(c.principal, c.resource, kind, c.id, c.variant[PROFILE] as PdfProfile | undefined),
  },
});

export const ublDocument = (kind: 'invoice' | 'creditNote'): Record<string, DocumentDescriptor> => ({
  [UBL_TYPE]: {
    description: (kind === 'invoice'
      ? 'a UBL 2.1 Invoice following EN 16931 and Peppol BIS Billing 3.0; 422 naming what the standard requires and is missing, or `discountType` for an invoice issued with a discount after tax (before CONTRACT §6 took it before tax)'
      : 'a UBL 2.1 CreditNote (type 381) following EN 16931 and Peppol BIS Billing 3.0; 422 naming what the standard requires and is missing')
      + "; XRechnung 3.0 for a client whose `eInvoiceFormat` is `xrechnung` (422 on `buyerReference` without one)",
    variants: { [PROFILE]: { peppol: 'Peppol BIS Billing 3.0 UBL', xrechnung: 'XRechnung 3.0 UBL (needs a buyerReference)' } },
    render: (c) => c.services.documents.ubl(c.principal, c.resource, kind, c.id, c.variant[PROFILE] as UblProfile | undefined),
  },
});

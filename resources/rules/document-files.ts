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

/** The server's document renderers. */
export interface DocumentRenderers {
  pdf(p: Principal, r: ModelResource, kind: DocumentKind, id: string): Promise<Rendered>;
  /** A UBL 2.1 Invoice or CreditNote; a 422 naming what EN 16931 requires and is missing. */
  ubl(p: Principal, r: ModelResource, kind: 'invoice' | 'creditNote', id: string): Promise<Rendered>;
}

declare module '../../engine/descriptor.ts' {
  interface OperationServices {
    documents: DocumentRenderers;
  }
}

export const pdfDocument = (kind: DocumentKind): Record<string, DocumentDescriptor> => ({
  [PDF_TYPE]: {
    description: `the ${kind === 'creditNote' ? 'credit note' : kind} as a PDF to send to the client`,
    render: (c) => c.services.documents.pdf(c.principal, c.resource, kind, c.id),
  },
});

export const ublDocument = (kind: 'invoice' | 'creditNote'): Record<string, DocumentDescriptor> => ({
  [UBL_TYPE]: {
    description: kind === 'invoice'
      ? 'a UBL 2.1 Invoice following EN 16931 and Peppol BIS Billing 3.0; 422 naming what the standard requires and is missing, or `discountType` for an invoice issued with a discount after tax (before CONTRACT §6 took it before tax)'
      : 'a UBL 2.1 CreditNote (type 381) following EN 16931 and Peppol BIS Billing 3.0; 422 naming what the standard requires and is missing',
    render: (c) => c.services.documents.ubl(c.principal, c.resource, kind, c.id),
  },
});

// The documents of invoices and quotes (CONTRACT §13), offered by the REST read route next to the
// formats: PDF for both, the UBL 2.1 e-invoice for invoices (a quote asked for it is a 406, as
// for any media type a route does not offer).
import type { Db } from '../../engine/types.ts';
import type { ModelResource } from '../../engine/model.ts';
import type { Engine } from '../../engine/operations.ts';
import type { ItemDocument } from '../../formats/types.ts';
import { loadDocument, type DocumentKind } from './data.ts';
import type { renderPdf as RenderPdf } from './pdf.ts';
import { renderUbl, UBL_TYPE, ublProblems } from './ubl.ts';

export const PDF_TYPE = 'application/pdf';

/**
 * PDFKit and fontkit (with the fonts, about 25 MB of an instance's memory) are loaded with the
 * first PDF asked for: an instance that never renders one does not carry them, and the garbage
 * collector does not walk them at every major collection.
 */
let pdfModule: Promise<{ renderPdf: typeof RenderPdf }> | undefined;
const renderPdf: typeof RenderPdf = async (d) => (await (pdfModule ??= import('./pdf.ts'))).renderPdf(d);

const KINDS: Record<string, DocumentKind> = { Invoice: 'invoice', Quote: 'quote', CreditNote: 'creditNote' };

/** A file name from a document number: letters, digits, dot, dash and underscore. */
export const fileName = (number: string, ext: string): string => `${number.replace(/[^A-Za-z0-9._-]+/g, '_') || 'document'}.${ext}`;

export function documentsOf(engine: Engine, db: Db): (r: ModelResource) => readonly ItemDocument[] {
  return (r) => {
    const kind = KINDS[r.name];
    if (!kind) return [];
    const pdf: ItemDocument = {
      mediaType: PDF_TYPE,
      description: `the ${kind === 'creditNote' ? 'credit note' : kind} as a PDF to send to the client`,
      async render(p, id) {
        const d = await loadDocument(engine, db, p, r, kind, id);
        return { body: await renderPdf(d), headers: { 'content-disposition': `inline; filename="${fileName(d.number, 'pdf')}"` } };
      },
    };
    if (kind === 'quote') return [pdf];
    const ubl: ItemDocument = {
      mediaType: UBL_TYPE,
      description: kind === 'invoice'
        ? 'a UBL 2.1 Invoice following EN 16931 and Peppol BIS Billing 3.0; 422 naming what the standard requires and is missing, or `discountType` for an invoice issued with a discount after tax (before CONTRACT §6 took it before tax)'
        : 'a UBL 2.1 CreditNote (type 381) following EN 16931 and Peppol BIS Billing 3.0; 422 naming what the standard requires and is missing',
      async render(p, id) {
        const d = await loadDocument(engine, db, p, r, kind, id);
        const problem = ublProblems(d);
        if (problem) throw problem;
        return { body: renderUbl(d), contentType: `${UBL_TYPE}; charset=utf-8`, headers: { 'content-disposition': `inline; filename="${fileName(d.number, 'xml')}"` } };
      },
    };
    return [pdf, ubl];
  };
}

// The renderers of the documents that descriptors declare (CONTRACT §13, §19): PDF (or the
// Factur-X PDF/A-3 with its CII), and the UBL 2.1 e-invoice (Peppol BIS 3 or XRechnung 3.0), as
// the `profile` asked for, else as the document's client's `eInvoiceFormat` says. Which resource
// has which is its descriptor's business (`documents`); the REST read route offers them next to
// the formats (a media type a resource does not declare is a 406).
import type { Db } from '../../engine/types.ts';
import type { Engine } from '../../engine/operations.ts';
import type { DocumentRenderers } from '../../resources/rules/document-files.ts';
import { loadDocument } from './data.ts';
import type { renderPdf as RenderPdf } from './pdf.ts';
import { renderUbl, ublProblems } from './ubl.ts';
import { ciiProblems, renderCii } from './cii.ts';
import { xrechnungProblems } from './xrechnung.ts';
import { UBL_TYPE } from '../../resources/rules/document-files.ts';

export const PDF_TYPE = 'application/pdf';

/**
 * PDFKit and fontkit (with the fonts, about 25 MB of an instance's memory) are loaded with the
 * first PDF asked for: an instance that never renders one does not carry them, and the garbage
 * collector does not walk them at every major collection.
 */
let pdfModule: Promise<{ renderPdf: typeof RenderPdf }> | undefined;
const renderPdf: typeof RenderPdf = async (d, facturX) => (await (pdfModule ??= import('./pdf.ts'))).renderPdf(d, facturX);

/** A file name from a document number: letters, digits, dot, dash and underscore. */
export const fileName = (number: string, ext: string): string => `${number.replace(/[^A-Za-z0-9._-]+/g, '_') || 'document'}.${ext}`;

/** The renderers the descriptors' documents use (resources/rules/document-files.ts). */
export function documentRenderers(engine: Engine, db: Db): DocumentRenderers {
  return {
    async pdf(p, r, kind, id, profile) {
      const d = await loadDocument(engine, db, p, r, kind, id);
      const headers = { 'content-disposition': `inline; filename="${fileName(d.number, 'pdf')}"` };
      // Factur-X (CONTRACT §19): asked for, or the client's format; quotes have no e-invoice.
      if (kind !== 'quote' && (profile ?? (d.eInvoiceFormat === 'facturx' ? 'facturx' : 'pdf')) === 'facturx') {
        const problem = ciiProblems(d);
        if (problem) throw problem;
        return { body: await renderPdf(d, { cii: renderCii(d) }), headers };
      }
      return { body: await renderPdf(d), headers };
    },
    async ubl(p, r, kind, id, profile) {
      const d = await loadDocument(engine, db, p, r, kind, id);
      const ubl = profile ?? (d.eInvoiceFormat === 'xrechnung' ? 'xrechnung' : 'peppol');
      const problem = ublProblems(d) ?? (ubl === 'xrechnung' ? xrechnungProblems(d) : null);
      if (problem) throw problem;
      return { body: renderUbl(d, ubl), contentType: `${UBL_TYPE}; charset=utf-8`, headers: { 'content-disposition': `inline; filename="${fileName(d.number, 'xml')}"` } };
    },
  };
}

// What makes the PDF of §13 a Factur-X 1.07 / ZUGFeRD 2.3 hybrid (CONTRACT §19): PDF/A-3b (PDF
// 1.7) with the document's CII (cii.ts) embedded as `factur-x.xml` (MIME type text/xml,
// AFRelationship Data, listed in the catalogue's /AF and its EmbeddedFiles names), an sRGB output
// intent (the ICC's own sRGB profile, shipped as an asset), and XMP metadata that says so:
// `pdfaid:part` 3 / `conformance` B, the Factur-X extension schema with its `fx:` properties, and
// title, author, producer and dates equal to the Info dictionary's. PDFKit writes the PDF/A
// structure (`subset: 'PDF/A-3b'`) and the attachment (`doc.file`); this module gives it what
// must not come from the clock or the file system: the dates are the document's issue date, the
// profile is read as an asset (so the single executable carries it), the XMP is escaped.
import { readAsset } from '../assets.ts';
import type { DocumentData } from './data.ts';

export const FACTURX_FILE = 'factur-x.xml';
/** Factur-X 1.07's XMP namespace (the same since 1.0), its version and the EN 16931 profile's level. */
export const FX_NS = 'urn:factur-x:pdfa:CrossIndustryDocument:invoice:1p0#';
export const FX_VERSION = '1.0';
export const FX_LEVEL = 'EN 16931';

/** PDFKit's options for a PDF/A-3b file. */
export const PDFA_OPTIONS = { pdfVersion: '1.7', subset: 'PDF/A-3b' } as const;

const xmlEsc = (s: string) => s.replace(/[&<>"]/g, (c) => (c === '&' ? '&amp;' : c === '<' ? '&lt;' : c === '>' ? '&gt;' : '&quot;'))
  .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/g, '');

/** XMP's date: `2026-03-01T00:00:00Z`. */
const xmpDate = (d: Date) => `${d.toISOString().slice(0, 19)}Z`;

const property = (name: string, description: string) => `
              <rdf:li rdf:parseType="Resource">
                <pdfaProperty:name>${name}</pdfaProperty:name>
                <pdfaProperty:valueType>Text</pdfaProperty:valueType>
                <pdfaProperty:category>external</pdfaProperty:category>
                <pdfaProperty:description>${description}</pdfaProperty:description>
              </rdf:li>`;

/** The XMP descriptions besides PDFKit's `pdfaid` one: document info, the fx: properties, their schema. */
export function facturXmp(o: { title: string; author: string; creator: string; producer: string; date: Date }): string {
  const when = xmpDate(o.date);
  return `
        <rdf:Description rdf:about="" xmlns:xmp="http://ns.adobe.com/xap/1.0/">
          <xmp:CreateDate>${when}</xmp:CreateDate>
          <xmp:ModifyDate>${when}</xmp:ModifyDate>
          <xmp:MetadataDate>${when}</xmp:MetadataDate>
          <xmp:CreatorTool>${xmlEsc(o.creator)}</xmp:CreatorTool>
        </rdf:Description>
        <rdf:Description rdf:about="" xmlns:dc="http://purl.org/dc/elements/1.1/">
          <dc:format>application/pdf</dc:format>
          <dc:title><rdf:Alt><rdf:li xml:lang="x-default">${xmlEsc(o.title)}</rdf:li></rdf:Alt></dc:title>
          <dc:creator><rdf:Seq><rdf:li>${xmlEsc(o.author)}</rdf:li></rdf:Seq></dc:creator>
        </rdf:Description>
        <rdf:Description rdf:about="" xmlns:pdf="http://ns.adobe.com/pdf/1.3/">
          <pdf:Producer>${xmlEsc(o.producer)}</pdf:Producer>
        </rdf:Description>
        <rdf:Description rdf:about="" xmlns:fx="${FX_NS}">
          <fx:DocumentType>INVOICE</fx:DocumentType>
          <fx:DocumentFileName>${FACTURX_FILE}</fx:DocumentFileName>
          <fx:Version>${FX_VERSION}</fx:Version>
          <fx:ConformanceLevel>${FX_LEVEL}</fx:ConformanceLevel>
        </rdf:Description>
        <rdf:Description rdf:about="" xmlns:pdfaExtension="http://www.aiim.org/pdfa/ns/extension/" xmlns:pdfaSchema="http://www.aiim.org/pdfa/ns/schema#" xmlns:pdfaProperty="http://www.aiim.org/pdfa/ns/property#">
          <pdfaExtension:schemas>
            <rdf:Bag>
              <rdf:li rdf:parseType="Resource">
                <pdfaSchema:schema>Factur-X PDFA Extension Schema</pdfaSchema:schema>
                <pdfaSchema:namespaceURI>${FX_NS}</pdfaSchema:namespaceURI>
                <pdfaSchema:prefix>fx</pdfaSchema:prefix>
                <pdfaSchema:property>
                  <rdf:Seq>${property('DocumentFileName', 'The name of the embedded XML document')}${property('DocumentType', 'The type of the hybrid document in capital letters, e.g. INVOICE or ORDER')}${property('Version', 'The actual version of the standard applying to the embedded XML document')}${property('ConformanceLevel', 'The conformance level of the embedded XML document')}
                  </rdf:Seq>
                </pdfaSchema:property>
              </rdf:li>
            </rdf:Bag>
          </pdfaExtension:schemas>
        </rdf:Description>
        `;
}

/** The part of PDFKit's document this module sets (its PDF/A mixin's hooks and the attachment). */
interface PdfaDoc {
  info: Record<string, unknown>;
  _root: { data: Record<string, unknown> };
  ref(data?: Record<string, unknown>): { write(b: Uint8Array): void; end(): void };
  appendXML(xml: string, newline?: boolean): void;
  file(src: Uint8Array, o: { name: string; type: string; relationship: string; description: string; creationDate: Date; modifiedDate: Date }): unknown;
  _addInfo(): void;
  _addColorOutputIntent(): void;
}

let icc: Buffer | undefined;

/**
 * Makes `doc` (created with PDFA_OPTIONS) a Factur-X file carrying `cii`: call right after the
 * document is created, before anything is drawn.
 */
export function makeFacturX(pdf: unknown, d: DocumentData, cii: string): void {
  const doc = pdf as PdfaDoc;
  // The document's date, not the clock's: the same record gives the same bytes.
  const date = new Date(`${d.issueDate}T00:00:00Z`);
  const info = doc.info;
  info.CreationDate = date;
  info.ModDate = date;
  doc._addInfo = function () {
    this.appendXML(facturXmp({ title: String(info.Title), author: String(info.Author), creator: String(info.Creator), producer: String(info.Producer), date }));
  };
  // PDFKit reads its copy of the profile from its package directory; ours comes from the assets.
  doc._addColorOutputIntent = function () {
    icc ??= readAsset('icc', 'sRGB_IEC61966_2_1.icc');
    const profile = this.ref({ Length: icc.length, N: 3 });
    profile.write(icc);
    profile.end();
    const intent = this.ref({
      Type: 'OutputIntent',
      S: 'GTS_PDFA1',
      Info: new String('sRGB IEC61966-2.1'),
      OutputConditionIdentifier: new String('sRGB IEC61966-2.1'),
      RegistryName: new String('http://www.color.org'),
      DestOutputProfile: profile,
    });
    intent.end();
    this._root.data.OutputIntents = [intent];
  };
  doc.file(Buffer.from(cii, 'utf8'), {
    name: FACTURX_FILE,
    type: 'text/xml',
    // Factur-X 1.07 for the EN 16931 profile: the XML is the data the visual invoice is made from.
    relationship: 'Data',
    description: 'Factur-X invoice (UN/CEFACT CII D16B, profile EN 16931)',
    creationDate: date,
    modifiedDate: date,
  });
}

// The official-artefact runner itself (test/support/einvoice-validate.ts): the official examples
// pass every layer, and each layer can fail — a document tampered for one rule gets that rule's
// fatal assertion from that layer, and expectValidUbl / expectValidCii throw on it.
import { describe, expect, it } from 'vitest';
import { artefactsAvailable, expectValidCii, expectValidUbl, readArtefact, validateCii, validateUbl, type Layer, type ValidationReport } from './support/einvoice-validate.ts';

const available = artefactsAvailable();
const fired = (r: ValidationReport, layer: Layer) => r.fatal.filter((a) => a.layer === layer).map((a) => a.id);

describe.skipIf(!available)('the official e-invoice artefacts', () => {
  const invoice = () => readArtefact('peppol-examples', 'rules/examples/base-example.xml');
  const creditNote = () => readArtefact('peppol-examples', 'rules/examples/base-creditnote-correction.xml');
  const cii = () => readArtefact('cen-examples', 'cii/examples/CII_example1.xml');

  it('pass the official Peppol examples (Invoice and CreditNote) through the schema, EN 16931 and Peppol', async () => {
    for (const xml of [invoice(), creditNote()]) {
      const r = await validateUbl(xml);
      expect(r.layers).toEqual(['ubl-xsd', 'cen-ubl', 'peppol-ubl']);
      expect(r.fatal).toEqual([]);
      await expectValidUbl(xml);
    }
  });

  it('pass the official CII example through the CII schema and EN 16931', async () => {
    const r = await validateCii(cii());
    expect(r.layers).toEqual(['cii-xsd', 'cen-cii']);
    expect(r.fatal).toEqual([]);
  });

  it('UBL 2.1 schema: an element UBL does not have is a fatal schema error', async () => {
    const xml = invoice().replace(/(<cbc:ProfileID>)/, '<cbc:Colour>blue</cbc:Colour>$1');
    const r = await validateUbl(xml);
    expect(fired(r, 'ubl-xsd')).toContain('XSD');
    expect(r.fatal.find((a) => a.layer === 'ubl-xsd')!.text).toMatch(/Colour/);
    await expect(expectValidUbl(xml)).rejects.toThrow(/ubl-xsd/);
  });

  it('EN 16931 (CEN): an amount due that does not add up fires BR-CO-16', async () => {
    const xml = invoice().replace(/(<cbc:PayableAmount currencyID="[A-Z]+">)[^<]+/, '$1999999.00');
    const r = await validateUbl(xml);
    expect(fired(r, 'cen-ubl')).toContain('BR-CO-16');
    await expect(expectValidUbl(xml)).rejects.toThrow(/BR-CO-16/);
  });

  it('Peppol BIS 3: an EndpointID with the scheme EM (not in the EAS list) fires PEPPOL-EN16931-CL008', async () => {
    const xml = invoice().replace(/(<cbc:EndpointID schemeID=")[^"]+(">)[^<]+/, '$1EM$2seller@example.com');
    const r = await validateUbl(xml);
    expect(fired(r, 'peppol-ubl')).toContain('PEPPOL-EN16931-CL008');
  });

  it('Peppol BIS 3 national rules: a Danish seller without its DK-R requirements is refused', async () => {
    // The example's seller is Norwegian; as a Danish one, DK-R-002 asks for a legal entity id in a Danish scheme.
    const xml = invoice().replace(/(<cac:AccountingSupplierParty>[\s\S]*?<cbc:IdentificationCode>)[A-Z]{2}/, '$1DK').replace(/(<cac:AccountingSupplierParty>[\s\S]*?<cbc:CompanyID>)[A-Z]{2}/, '$1DK');
    const r = await validateUbl(xml);
    expect(fired(r, 'peppol-ubl').some((id) => /^DK-R-/.test(id))).toBe(true);
  });

  it('XRechnung (KoSIT): asked for on documents that are not XRechnung, its rules fire (BR-DE-2: no seller contact)', async () => {
    const r = await validateUbl(invoice(), { xrechnung: true });
    expect(r.layers).toContain('xrechnung-ubl');
    expect(fired(r, 'xrechnung-ubl')).toContain('BR-DE-2');
    const c = await validateCii(cii(), { xrechnung: true });
    expect(fired(c, 'xrechnung-cii')).toContain('BR-DE-2');
  });

  it('CII: the schema and EN 16931 for CII fail tampered documents', async () => {
    const bad = cii().replace(/(<ram:GrandTotalAmount[^>]*>)[^<]+/, '$1123456.78');
    const r = await validateCii(bad);
    expect(fired(r, 'cen-cii')).toContain('BR-CO-15');
    await expect(expectValidCii(bad)).rejects.toThrow(/BR-CO-15/);
    const xsd = await validateCii(cii().replace(/(<rsm:ExchangedDocument>)/, '$1<ram:Colour>blue</ram:Colour>'));
    expect(fired(xsd, 'cii-xsd')).toContain('XSD');
  });

  it('gives each assertion its id, flag, text and location', async () => {
    const r = await validateUbl(invoice().replace(/(<cbc:PayableAmount currencyID="[A-Z]+">)[^<]+/, '$1999999.00'));
    const a = r.fatal.find((x) => x.id === 'BR-CO-16')!;
    expect(a).toMatchObject({ layer: 'cen-ubl', flag: 'fatal' });
    expect(a.text).toMatch(/BR-CO-16/);
    expect(a.location).toMatch(/Invoice/);
  });
});

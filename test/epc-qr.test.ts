// The EPC QR code (EPC069-12) of a bank transfer: the payload's elements, and the code rendered as
// a PNG by `qrcode` read back with jsQR, as a banking app would read it.
import { describe, expect, it } from 'vitest';
import { epcMatrix, epcPayload, epcPng, epcPossible, epcSvg } from '../server/documents/epc.ts';
import { decodePng } from './support/qr.ts';

describe('EPC QR code', () => {
  const transfer = { name: 'Links Company GmbH', iban: 'DE89 3704 0044 0532 0130 00', bic: 'cobadeffxxx', amount: 123456, reference: 'INV-000042' };

  it('decodes back to the EPC069-12 elements: BCD, 002, UTF-8, SCT, BIC, name, IBAN, EUR amount, remittance', async () => {
    const text = decodePng(await epcPng(epcPayload(transfer)));
    expect(text).not.toBeNull();
    const lines = text!.split('\n');
    expect(lines).toEqual(['BCD', '002', '1', 'SCT', 'COBADEFFXXX', 'Links Company GmbH', 'DE89370400440532013000', 'EUR1234.56', '', '', 'INV-000042']);
    expect(Buffer.byteLength(text!)).toBeLessThanOrEqual(331);
  });

  it('keeps to the standard\'s limits: name 70, remittance 140 characters, no line breaks inside an element, amounts with two decimals', async () => {
    const payload = epcPayload({ ...transfer, name: `Ωμέγα ${'x'.repeat(100)}`, reference: `R\n${'y'.repeat(200)}`, bic: null, amount: 1 });
    const lines = payload.split('\n');
    expect(lines).toHaveLength(11);
    expect([...lines[5]!].length).toBe(70);
    expect(lines[4]).toBe('');
    expect(lines[7]).toBe('EUR0.01');
    expect([...lines[10]!].length).toBe(140);
    expect(decodePng(await epcPng(payload))).toBe(payload);
    expect(epcMatrix(payload).size).toBeGreaterThan(20);
    expect(await epcSvg(payload)).toMatch(/^<svg|<\?xml/);
  });

  it('is only made for euros and an amount of 0.01 to 999,999,999.99 with an IBAN', () => {
    expect(epcPossible('EUR', 1, 'DE89370400440532013000')).toBe(true);
    expect(epcPossible('USD', 100, 'DE89370400440532013000')).toBe(false);
    expect(epcPossible('EUR', 0, 'DE89370400440532013000')).toBe(false);
    expect(epcPossible('EUR', 100_000_000_000, 'DE89370400440532013000')).toBe(false);
    expect(epcPossible('EUR', 100, null)).toBe(false);
  });
});

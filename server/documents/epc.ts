// The EPC QR code (EPC069-12, "SEPA credit transfer" quick response code) that banking apps read
// to fill in a transfer: service tag BCD, version 002, character set 1 (UTF-8), identification SCT,
// the beneficiary's BIC (optional in version 002), name (≤ 70) and IBAN, the amount in euros
// ("EUR12.34", 0.01 to 999999999.99), no purpose, no structured reference, the remittance text
// (≤ 140: the invoice number). Error correction level M, as the standard requires; the payload is
// at most 331 bytes. Drawn by the `qrcode` package: its module matrix for the PDF (vector squares),
// an SVG for the page.
import QRCode from 'qrcode';
import { decimalOf } from './money.ts';

export interface TransferDetails {
  name: string;
  iban: string;
  bic: string | null;
  /** Euro cents. */
  amount: number;
  reference: string;
}

const clip = (s: string, n: number) => [...s.replace(/[\r\n]+/g, ' ').trim()].slice(0, n).join('');

/** Whether an EPC QR code can be made: euros, an amount between 0.01 and 999,999,999.99, an IBAN. */
export const epcPossible = (currency: string, amount: number | null, iban: unknown): boolean =>
  currency === 'EUR' && typeof iban === 'string' && iban !== '' && amount !== null && amount >= 1 && amount <= 99_999_999_999;

/** The EPC069-12 payload (lines joined by LF; trailing empty elements left out). */
export function epcPayload(t: TransferDetails): string {
  const lines = [
    'BCD', '002', '1', 'SCT',
    (t.bic ?? '').replace(/\s+/g, '').toUpperCase(),
    clip(t.name, 70),
    t.iban.replace(/\s+/g, '').toUpperCase(),
    `EUR${decimalOf(t.amount, 2)}`,
    '', // purpose
    '', // structured creditor reference
    clip(t.reference, 140),
  ];
  return lines.join('\n');
}

const options = { errorCorrectionLevel: 'M' as const, margin: 0 };

/** The code's modules: `size` × `size`, `dark(x, y)`. */
export function epcMatrix(payload: string): { size: number; dark(x: number, y: number): boolean } {
  const qr = QRCode.create(payload, options);
  return { size: qr.modules.size, dark: (x, y) => Boolean(qr.modules.get(y, x)) };
}

/** The code as an SVG document (a 4-module quiet zone), for the client page. */
export function epcSvg(payload: string): Promise<string> {
  return QRCode.toString(payload, { ...options, type: 'svg', margin: 4, color: { dark: '#000000', light: '#ffffff' } });
}

/** The code as a PNG (tests decode it back). */
export function epcPng(payload: string, scale = 6): Promise<Buffer> {
  return QRCode.toBuffer(payload, { ...options, type: 'png', margin: 4, scale });
}

// What XRechnung 3.0 (KoSIT's rules, BR-DE-*) asks beyond EN 16931 and the data may lack
// (CONTRACT §19): the buyer reference (BT-10, the Leitweg-ID of a German public buyer), the
// seller's contact (BG-6: phone and e-mail), both parties' city and post code, and payment
// instructions (BG-16: the profile's IBAN). Each is a 422 naming the field to set.
import { ApiError, ViolationCode, type Violation } from '../../engine/errors.ts';
import type { DocumentData } from './data.ts';

const str = (v: unknown): string | null => (typeof v === 'string' && v.trim() !== '' ? v.trim() : null);

export function xrechnungProblems(d: DocumentData): ApiError | null {
  const v: Violation[] = [];
  const need = (value: unknown, path: string, what: string) => {
    if (str(value) === null) v.push({ propertyPath: path, message: `An XRechnung needs ${what}.`, code: ViolationCode.blank });
  };
  const s = d.seller;
  need(d.buyerReference, 'buyerReference', "a buyer reference (BT-10, BR-DE-15; for a German public buyer its Leitweg-ID): set the client's buyerReference, or the invoice's");
  need(s.contactName, 'company.contactName', "the seller's contact point (BT-41, BR-DE-5): set contactName in the company profile");
  need(s.phone, 'company.phone', "the seller contact's telephone number (BT-42, BR-DE-6): set the phone of the company profile");
  need(s.email, 'company.email', "the seller contact's e-mail address (BT-43, BR-DE-7): set the email of the company profile");
  need(s.city, 'company.city', "the seller's city (BT-37, BR-DE-3): set it in the company profile");
  need(s.zip, 'company.zip', "the seller's post code (BT-38, BR-DE-4): set it in the company profile");
  need(d.buyer.address?.city, 'client.addresses', "the buyer's city (BT-52, BR-DE-8): give the client's first address a city");
  need(d.buyer.address?.zip, 'client.addresses', "the buyer's post code (BT-53, BR-DE-9): give the client's first address a zip");
  need(s.iban, 'company.iban', 'payment instructions (BG-16, BR-DE-1): set the IBAN of the company profile');
  return v.length ? ApiError.validation(v) : null;
}

// Online payment on client links (CONTRACT §16): providers behind one interface. A provider makes a
// hosted checkout for an invoice's balance, and turns its signed notifications into completions;
// what is recorded (one `card` payment per completed session, through the engine) is the same for
// every provider (server/links/public.ts). Stripe is the one there is: Checkout Sessions made with
// the official `stripe` library, events verified with it.
import Stripe from 'stripe';
import type { Config } from '../config.ts';

export interface CheckoutRequest {
  company: string;
  invoice: string;
  link: string;
  /** The invoice's number (the item's name and the payment's description). */
  number: string;
  /** The balance, in the currency's minor units. */
  amount: number;
  currency: string;
  successUrl: string;
  cancelUrl: string;
}

/** A completed checkout, as a provider's verified notification tells it. */
export interface Completion {
  sessionId: string;
  amount: number;
  currency: string;
}

export class BadSignature extends Error {}

export interface PaymentProvider {
  /** Short name: the path of its notifications (`/payments/<name>/webhook`) and the sessions' `provider`. */
  readonly name: string;
  /** The button's words on the page. */
  readonly label: string;
  /** Origins the Pay form's redirect goes to (the page's form-action allows them). */
  readonly formTargets: readonly string[];
  /** Makes a hosted checkout for the amount: its id and where to send the client. */
  checkout(r: CheckoutRequest): Promise<{ sessionId: string; url: string }>;
  /**
   * Verifies a notification (raw body and headers): BadSignature when it is not the provider's;
   * the completion it reports, or null for any other event.
   */
  completion(body: Buffer, headers: Record<string, string | string[] | undefined>): Completion | null;
}

/** The Stripe client for a `STRIPE_API_BASE` (tests: a local stub of Stripe's API), or Stripe's own. */
function stripeClient(secretKey: string, apiBase: string | undefined): Stripe {
  if (!apiBase) return new Stripe(secretKey, { maxNetworkRetries: 2, timeout: 20_000 });
  const u = new URL(apiBase);
  const protocol = u.protocol === 'http:' ? 'http' : 'https';
  return new Stripe(secretKey, { host: u.hostname, port: u.port || (protocol === 'http' ? 80 : 443), protocol, maxNetworkRetries: 0, timeout: 20_000 });
}

export function stripeProvider(o: { secretKey: string; webhookSecret: string; apiBase?: string | undefined }): PaymentProvider {
  const stripe = stripeClient(o.secretKey, o.apiBase);
  return {
    name: 'stripe',
    label: 'Pay by card',
    formTargets: [o.apiBase ? new URL(o.apiBase).origin : 'https://checkout.stripe.com'],
    async checkout(r) {
      const session = await stripe.checkout.sessions.create({
        mode: 'payment',
        line_items: [{ quantity: 1, price_data: { currency: r.currency.toLowerCase(), unit_amount: r.amount, product_data: { name: `Invoice ${r.number}` } } }],
        client_reference_id: r.invoice,
        metadata: { company: r.company, invoice: r.invoice, link: r.link },
        success_url: r.successUrl,
        cancel_url: r.cancelUrl,
      });
      if (!session.url) throw new Error('Stripe answered a Checkout Session without a URL.');
      return { sessionId: session.id, url: session.url };
    },
    completion(body, headers) {
      const signature = headers['stripe-signature'];
      let event: Stripe.Event;
      try {
        event = stripe.webhooks.constructEvent(body, typeof signature === 'string' ? signature : '', o.webhookSecret);
      } catch (e) {
        throw new BadSignature((e as Error).message);
      }
      if (event.type !== 'checkout.session.completed' && event.type !== 'checkout.session.async_payment_succeeded') return null;
      const s = event.data.object as Stripe.Checkout.Session;
      // A completed session whose payment is still to clear (a delayed method) records nothing yet:
      // async_payment_succeeded follows it.
      if (s.payment_status !== 'paid') return null;
      return { sessionId: s.id, amount: Number(s.amount_total ?? 0), currency: String(s.currency ?? '').toUpperCase() };
    },
  };
}

/** The provider PAYMENT_PROVIDER names, or none (the page then offers bank transfer only). */
export function paymentProvider(c: Config['payments']): PaymentProvider | undefined {
  if (c.provider === 'stripe') return stripeProvider({ secretKey: c.stripe.secretKey!, webhookSecret: c.stripe.webhookSecret!, apiBase: c.stripe.apiBase });
  return undefined;
}

// Which URLs a webhook may call (CONTRACT §11): http or https, and never an address inside the
// service's own networks: loopback, private, link-local, unique-local, unspecified, multicast.
// WEBHOOK_ALLOW_PRIVATE=true lets loopback and private ranges through (tests, intranets);
// link-local (169.254.0.0/16, fe80::/10: cloud metadata services) stays refused. A host name is
// resolved and every address it resolves to is checked, at write time and again at each attempt,
// where the connection uses the addresses checked (no second resolution to rebind). The policy
// is a service (OperationServices.webhookUrls) the server makes from its configuration.
import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';
import { memo } from '../../engine/memo.ts';

declare module '../../engine/descriptor.ts' {
  interface OperationServices {
    /** Which addresses webhooks may call (WEBHOOK_ALLOW_PRIVATE). */
    webhookUrls: WebhookUrlPolicy;
  }
}

const always = new BlockList();
always.addSubnet('169.254.0.0', 16, 'ipv4'); // link-local, cloud metadata
always.addSubnet('0.0.0.0', 8, 'ipv4'); // unspecified / "this network"
always.addSubnet('224.0.0.0', 4, 'ipv4'); // multicast
always.addSubnet('240.0.0.0', 4, 'ipv4'); // reserved, broadcast
always.addSubnet('fe80::', 10, 'ipv6');
always.addAddress('::', 'ipv6');
always.addSubnet('ff00::', 8, 'ipv6');

const privateRanges = new BlockList();
privateRanges.addSubnet('127.0.0.0', 8, 'ipv4');
privateRanges.addSubnet('10.0.0.0', 8, 'ipv4');
privateRanges.addSubnet('172.16.0.0', 12, 'ipv4');
privateRanges.addSubnet('192.168.0.0', 16, 'ipv4');
privateRanges.addSubnet('100.64.0.0', 10, 'ipv4'); // carrier-grade NAT
privateRanges.addAddress('::1', 'ipv6');
privateRanges.addSubnet('fc00::', 7, 'ipv6'); // unique local

/** Which URLs and addresses webhooks may call: one per server, from WEBHOOK_ALLOW_PRIVATE. */
export class WebhookUrlPolicy {
  #allowPrivate: boolean;
  /**
   * Why `address` (an IP) may not be called, or undefined when it may. Verdicts are kept: each
   * attempt checks its address again, and a BlockList check costs microseconds (it makes a
   * SocketAddress). Endpoints are few.
   */
  readonly addressProblem = memo((address: string) => checkAddress(address, this.#allowPrivate));

  constructor(allowPrivate: boolean) {
    this.#allowPrivate = allowPrivate;
  }

  /** Whether loopback and private addresses may be called (changed by tests of the running server). */
  get allowPrivate(): boolean {
    return this.#allowPrivate;
  }
  set allowPrivate(allow: boolean) {
    this.#allowPrivate = allow;
    this.addressProblem.clear();
  }

  /**
   * Why `url` may not be a webhook's, or undefined when it may. A name that does not resolve now
   * is accepted (its attempts fail until it does, and are checked then).
   */
  async urlProblem(url: string): Promise<string | undefined> {
    let u: URL;
    try {
      u = new URL(url);
    } catch {
      return 'This value is not a valid URL.';
    }
    if (u.protocol !== 'http:' && u.protocol !== 'https:') return 'The URL must use http or https.';
    for (const a of await resolveHost(u.hostname)) {
      const problem = this.addressProblem(a);
      if (problem) return problem;
    }
    return undefined;
  }
}

function checkAddress(address: string, allowPrivate: boolean): string | undefined {
  let a = address.startsWith('[') ? address.slice(1, -1) : address;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(a);
  if (mapped) a = mapped[1]!;
  const family = isIP(a) === 6 ? 'ipv6' : 'ipv4';
  if (always.check(a, family)) return `The address ${a} is link-local, unspecified or multicast, which webhooks may never call.`;
  if (!allowPrivate && privateRanges.check(a, family)) return `The address ${a} is a loopback or private address, which webhooks may not call (WEBHOOK_ALLOW_PRIVATE=true allows it).`;
  return undefined;
}

/** The addresses `host` resolves to (itself when it is an IP); empty when it does not resolve. */
export async function resolveHost(host: string): Promise<string[]> {
  const h = host.startsWith('[') ? host.slice(1, -1) : host;
  if (isIP(h)) return [h];
  if (h === 'localhost' || h.endsWith('.localhost')) return ['127.0.0.1', '::1'];
  try {
    return (await lookup(h, { all: true, verbatim: true })).map((x) => x.address);
  } catch {
    return [];
  }
}

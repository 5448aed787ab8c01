// Errors are values with a status, a title and a detail: raised anywhere, formatted in one place
// (the problem+json format for REST, the GraphQL adapter for GraphQL).

export interface Violation {
  propertyPath: string;
  message: string;
  code: string;
  /**
   * The values the message states, for machines (`{ balance: { amount: 161823, currency: 'EUR' } }`).
   * A `{name}` in the message is written for people from its value: an amount in major units with
   * its currency ("1,618.23 EUR"), never in minor units (CONTRACT §20).
   */
  extensions?: Record<string, unknown>;
}

/** An amount a violation states: an integer of minor units and its ISO 4217 currency. */
export interface Amount {
  amount: number;
  currency: string;
}

export const amount = (minor: number, currency: string): Amount => ({ amount: Number(minor), currency: String(currency) });

const isAmount = (v: unknown): v is Amount => typeof v === 'object' && v !== null && typeof (v as Amount).amount === 'number' && typeof (v as Amount).currency === 'string';

const digitsOf = new Map<string, number>();
/** An amount for people: major units with grouping and the currency's decimals (ISO 4217, from ICU), then its code. */
export function amountText(a: Amount): string {
  let digits = digitsOf.get(a.currency);
  if (digits === undefined) {
    try {
      digits = new Intl.NumberFormat('en', { style: 'currency', currency: a.currency }).resolvedOptions().maximumFractionDigits ?? 2;
    } catch {
      digits = 2;
    }
    digitsOf.set(a.currency, digits);
  }
  const n = BigInt(Math.trunc(a.amount));
  const abs = (n < 0n ? -n : n).toString().padStart(digits + 1, '0');
  const whole = abs.slice(0, abs.length - digits).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return `${n < 0n ? '-' : ''}${whole}${digits ? `.${abs.slice(abs.length - digits)}` : ''} ${a.currency}`;
}

/** A violation's message with its `{name}` placeholders written from its extensions. */
function written(v: Violation): Violation {
  if (!v.extensions || !v.message.includes('{')) return v;
  const ext = v.extensions;
  const message = v.message.replace(/\{(\w+)\}/g, (whole, name: string) => {
    const value = ext[name];
    if (isAmount(value)) return amountText(value);
    return value === undefined ? whole : String(value);
  });
  return { ...v, message };
}

// Stable codes for each kind of violation, so clients can branch on them.
export const ViolationCode = {
  blank: 'c1051bb4-d103-4f74-8988-acbcafc7fdc3',
  type: 'ba785a8c-82cb-4283-967c-3cf342181b40',
  length: 'd94b19cc-114f-4f44-9cc4-4138e80a87b9',
  range: '04b91c99-a946-4221-afc5-e65ebac401eb',
  choice: '8e179f1b-97aa-4560-a02f-2a8b42e49df7',
  format: 'de1e3db3-5ed4-4941-aae4-59f3667cc3a3',
  unique: '23bd9dbf-6b9b-41cd-a99e-4844bcf3077f',
  notFound: '3d2b7a6e-1f0e-4c5a-9a4c-7d1f2e6b8a90',
  state: 'b7c1a7e2-6a0b-4f5e-9a59-1f3b7f5d9c21',
  rule: 'f8a2c1d4-3b5e-4d6f-8a7b-9c0d1e2f3a4b',
} as const;

export class ApiError extends Error {
  readonly status: number;
  readonly title: string;
  readonly violations: readonly Violation[] | undefined;
  readonly extra: Record<string, unknown> | undefined;
  readonly headers: Record<string, string> | undefined;

  constructor(status: number, detail: string, opts: { title?: string; violations?: Violation[]; extra?: Record<string, unknown>; headers?: Record<string, string> } = {}) {
    super(detail);
    this.status = status;
    this.title = opts.title ?? 'An error occurred';
    this.violations = opts.violations;
    this.extra = opts.extra;
    this.headers = opts.headers;
  }

  get detail(): string {
    return this.message;
  }

  /** problem+json `type`: `/validation_errors/<codes>` for violations, else `/errors/<status>`. */
  get type(): string {
    if (this.violations?.length) {
      const v = this.violations;
      return `/validation_errors/${v.length === 1 ? v[0]!.code : v.map((x, i) => `${i}=${x.code}`).join(';')}`;
    }
    return `/errors/${this.status}`;
  }

  static validation(list: Violation[]): ApiError {
    const violations = list.map(written);
    return new ApiError(422, violations.map((v) => `${v.propertyPath}: ${v.message}`).join('\n'), { violations });
  }
  static badRequest(detail: string): ApiError {
    return new ApiError(400, detail);
  }
  static notFound(detail = 'Not Found'): ApiError {
    return new ApiError(404, detail);
  }
  static forbidden(detail = 'Access Denied.'): ApiError {
    return new ApiError(403, detail);
  }
  static conflict(detail: string): ApiError {
    return new ApiError(409, detail);
  }
}

export const violation = (propertyPath: string, message: string, code: string = ViolationCode.rule, extensions?: Record<string, unknown>): Violation =>
  extensions ? { propertyPath, message, code, extensions } : { propertyPath, message, code };

/** Collects violations and throws them together. */
export class Violations {
  readonly list: Violation[] = [];
  add(path: string, message: string, code?: string, extensions?: Record<string, unknown>): void {
    this.list.push(violation(path, message, code, extensions));
  }
  has(path: string): boolean {
    return this.list.some((v) => v.propertyPath === path);
  }
  throwIfAny(): void {
    if (this.list.length) throw ApiError.validation(this.list);
  }
}

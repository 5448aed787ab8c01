// A browser-like HTTP client for the web pages' tests: keeps cookies, reads the CSRF token of the
// page it loaded, posts forms and JSON.
import { expect } from 'vitest';

export interface WebRes {
  status: number;
  headers: Headers;
  text: string;
  body: any;
  location: string | null;
}

export class Browserish {
  readonly cookies = new Map<string, string>();
  constructor(
    readonly base: string,
    /** `ip`: its address (x-forwarded-for); `language`: the Accept-Language of every request. */
    readonly o: { ip?: string; language?: string } = {},
  ) {}

  cookieHeader(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }

  async request(method: string, path: string, o: { form?: Record<string, string>; json?: unknown; headers?: Record<string, string> } = {}): Promise<WebRes> {
    const headers: Record<string, string> = { ...(o.headers ?? {}) };
    if (this.cookies.size) headers.cookie = this.cookieHeader();
    if (this.o.ip) headers['x-forwarded-for'] = this.o.ip;
    if (this.o.language) headers['accept-language'] ??= this.o.language;
    let body: string | undefined;
    if (o.form) {
      headers['content-type'] = 'application/x-www-form-urlencoded';
      body = new URLSearchParams(o.form).toString();
    } else if (o.json !== undefined) {
      headers['content-type'] ??= 'application/json';
      body = JSON.stringify(o.json);
    }
    const res = await fetch(this.base + path, { method, headers, body, redirect: 'manual' });
    for (const c of res.headers.getSetCookie()) {
      const [pair] = c.split(';');
      const [name, ...value] = pair!.split('=');
      const v = value.join('=');
      if (/max-age=0|expires=thu, 01 jan 1970/i.test(c) || v === '') this.cookies.delete(name!.trim());
      else this.cookies.set(name!.trim(), v);
    }
    const text = await res.text();
    let parsed: unknown;
    if (/json/.test(res.headers.get('content-type') ?? '') && text) parsed = JSON.parse(text);
    return { status: res.status, headers: res.headers, text, body: parsed, location: res.headers.get('location') };
  }

  get(path: string, headers?: Record<string, string>) {
    return this.request('GET', path, { headers });
  }

  /** The CSRF token in a page: the hidden `_csrf` field, or the boot data of /app. */
  static csrfOf(html: string): string {
    const m = /name="_csrf" value="([^"]+)"/.exec(html) ?? /"csrf":"([^"]+)"/.exec(html);
    expect(m, 'page has a CSRF token').toBeTruthy();
    return m![1]!;
  }

  /** Loads the form page and posts it with its CSRF token. */
  async submit(page: string, action: string, fields: Record<string, string>): Promise<WebRes> {
    const form = await this.get(page);
    expect(form.status).toBe(200);
    return this.request('POST', action, { form: { _csrf: Browserish.csrfOf(form.text), ...fields } });
  }

  async login(email: string, password: string): Promise<WebRes> {
    return this.submit('/login', '/login', { email, password });
  }

  /** The session's CSRF token, from /app. */
  async csrf(): Promise<string> {
    const page = await this.get('/app');
    expect(page.status).toBe(200);
    return Browserish.csrfOf(page.text);
  }

  /** A JSON call of a page to /api, with the CSRF header (`csrf: null` sends none); a PATCH is a merge patch. */
  async call(method: string, path: string, json?: unknown, csrf?: string | null): Promise<WebRes> {
    const headers: Record<string, string> = { accept: 'application/json' };
    if (method === 'PATCH') headers['content-type'] = 'application/merge-patch+json';
    const token = csrf === undefined ? await this.csrf() : csrf;
    if (token !== null && method !== 'GET') headers['x-csrf-token'] = token;
    return this.request(method, path, { json, headers });
  }

  /** The signed-in user, the active company and the user's companies, as the settings page boots with them; null when signed out. */
  async me(): Promise<{ user: { email: string; name: string }; company: { id: string; name: string; role: string; currency: string } | null; companies: { id: string; name: string; role: string }[] } | null> {
    const page = await this.get('/app');
    if (page.status !== 200) return null;
    const m = /<script type="application\/json" id="boot">(.*?)<\/script>/s.exec(page.text);
    expect(m, 'page has its boot data').toBeTruthy();
    return JSON.parse(m![1]!);
  }

  /** Makes another of the user's companies the active one (the settings pages' form). */
  async switchCompany(companyId: string, csrf?: string | null): Promise<WebRes> {
    const token = csrf === undefined ? await this.csrf() : csrf;
    return this.request('POST', '/profile/switch-company', { form: { ...(token === null ? {} : { _csrf: token }), companyId, next: '/app/settings/api-tokens' } });
  }
}

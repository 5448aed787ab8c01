// The settings pages' router and navigation (web/app/lib.js and views/shell.js), in Node on the real
// model's description: the pages of what the description lacks (company, people, API tokens),
// then each settings resource — the webhooks' page chosen by the view their delivery log's
// operation declares, the others their plain list —; addresses under /app/settings; a resource
// that declares no registered view keeps its list. And the old settings addresses redirect.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeModel } from '../http/describe.ts';
import { model } from '../server/model.ts';
import { startTestServer, type TestServer } from './helpers.ts';
// @ts-expect-error: the pages' plain ES modules, run here as the browser runs them.
import * as lib from '../web/app/lib.js';
// The English catalogue as the English page gets it: its messages parsed (http/describe-i18n.ts).
import { appCatalogue } from '../http/describe-i18n.ts';

lib.setLanguage('en', 'en', appCatalogue('en'));
const settings = lib;

const desc = () => lib.indexDescription(structuredClone(describeModel(model)));

describe('the settings of /app', () => {
  it('lists the pages, then the settings resources, the webhooks by their declared view', () => {
    const d = desc();
    expect(d.get('Webhook').operations.find((o: { name: string }) => o.name === 'deliveries').view).toBe('deliveries');
    expect(settings.settingsLinks(d)).toEqual([
      { href: '/app/settings/company', label: 'Company', key: 'settings:company' },
      { href: '/app/settings/people', label: 'People', key: 'settings:people' },
      { href: '/app/settings/api-tokens', label: 'API tokens', key: 'settings:api-tokens' },
      { href: '/app/settings/webhooks', label: 'Webhooks', key: 'settings:webhooks' },
      { href: '/app/document-links', label: 'Document links', key: 'DocumentLink' },
      { href: '/app/emails', label: 'Emails', key: 'Email' },
    ]);
  });

  it('routes /app/settings addresses; other addresses are not its own', () => {
    const d = desc();
    expect(settings.settingsRoute(d, '/app/settings/people').page.label).toBe('People');
    expect(settings.settingsRoute(d, '/app/settings').page.label).toBe('Company');
    const hooks = settings.settingsRoute(d, '/app/settings/webhooks/');
    expect(hooks.page.resource.name).toBe('Webhook');
    expect(settings.settingsRoute(d, '/app/settings/emails')).toEqual({ view: 'missing' });
    expect(settings.settingsRoute(d, '/app/settings/nope')).toEqual({ view: 'missing' });
    expect(settings.settingsRoute(d, '/app/webhooks')).toBeNull();
    // Without the declared view, the webhooks are a plain list like the others.
    for (const op of d.get('Webhook').operations) delete op.view;
    expect(settings.settingsLinks(d).find((l: { label: string }) => l.label === 'Webhooks')).toEqual({ href: '/app/webhooks', label: 'Webhooks', key: 'Webhook' });
    expect(settings.settingsRoute(d, '/app/settings/webhooks')).toEqual({ view: 'missing' });
  });
});

describe('the old settings addresses', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer();
  });
  afterAll(async () => {
    await t?.close();
  });
  it('redirect into /app', async () => {
    for (const [from, to] of [['/profile', '/app/settings/api-tokens'], ['/profile/api', '/app/settings/api-tokens'], ['/profile/company', '/app/settings/company'], ['/profile/webhooks', '/app/settings/webhooks']]) {
      const res = await fetch(`${t.url}${from}`, { redirect: 'manual' });
      expect(res.status, from).toBe(302);
      expect(res.headers.get('location'), from).toBe(to);
    }
  });
});

// The webhook's declared operations (resources/rules/webhook-operations.ts) in GraphQL and with
// an Idempotency-Key, as the engine derives them for the real service: the REST side is
// test/webhooks.test.ts's.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, client, startTestServer, tokenFor, type Client, type TestServer } from './helpers.ts';

let t: TestServer;
let api: Client;
let viewer: Client;
beforeAll(async () => {
  t = await startTestServer({ WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_WORKER: 'off' });
  api = client(t, await tokenFor(t, { email: 'ops@hooks.test', company: 'Ops' }));
  viewer = client(t, await tokenFor(t, { email: 'v@hooks.test', company: 'Ops', role: 'viewer' }));
});
afterAll(() => t.close());

const gql = (c: Client, query: string) => call(t, 'POST', '/api/graphql', { token: c.token, body: { query }, contentType: 'application/json' });

describe('webhook operations in GraphQL', () => {
  it('rotates the secret, pings, lists and retries deliveries, as REST does', async () => {
    const made = await api.post('/api/webhooks', { url: 'http://127.0.0.1:9/hook', events: ['*'] });
    expect(made.status, made.text).toBe(201);
    const iri = made.body['@id'] as string;

    const rotated = await gql(api, `mutation { rotateSecretWebhook(input: { id: "${iri}", clientMutationId: "r" }) { webhook { id secret } clientMutationId } }`);
    expect(rotated.body.errors).toBeUndefined();
    const secret = rotated.body.data.rotateSecretWebhook.webhook.secret as string;
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/=]{44}$/);
    expect(secret).not.toBe(made.body.secret);
    expect((await api.get(iri, { accept: 'application/json' })).body.secret).toBe(`whsec_…${secret.slice(-4)}`);

    const ping = await gql(api, `mutation { pingWebhook(input: { id: "${iri}" }) { webhookDelivery { id type status } } }`);
    expect(ping.body.errors, JSON.stringify(ping.body.errors)).toBeUndefined();
    const delivery = ping.body.data.pingWebhook.webhookDelivery;
    expect(delivery).toMatchObject({ type: 'webhook.ping', status: 'pending' });

    const page = await gql(viewer, `{ webhookDeliveries(id: "${iri}", status: "pending", type: "webhook.ping") { items { id type } totalCount next } }`);
    expect(page.body.errors).toBeUndefined();
    expect(page.body.data.webhookDeliveries).toEqual({ items: [{ id: delivery.id, type: 'webhook.ping' }], totalCount: 1, next: null });

    const retried = await gql(api, `mutation { retryWebhookDelivery(input: { id: "${iri}", delivery: "${delivery.id}" }) { webhookDelivery { id status } } }`);
    expect(retried.body.data.retryWebhookDelivery.webhookDelivery).toEqual({ id: delivery.id, status: 'pending' });

    const refused = await gql(viewer, `mutation { pingWebhook(input: { id: "${iri}" }) { webhookDelivery { id } } }`);
    expect(refused.status).toBe(403);
    expect(refused.body.errors[0].extensions.status).toBe(403);
    const types = await gql(viewer, '{ eventTypesWebhook }');
    expect(types.body.data.eventTypesWebhook).toEqual(expect.arrayContaining(['invoice.paid', 'webhook.ping']));
  });

  it('replays a POST operation sent again with its Idempotency-Key, and does it once', async () => {
    const made = await api.post('/api/webhooks', { url: 'http://127.0.0.1:9/again', events: ['*'] });
    const iri = made.body['@id'] as string;
    const headers = { 'idempotency-key': 'ping-once' };
    const first = await api.post(`${iri}/ping`, undefined, { headers });
    const again = await api.post(`${iri}/ping`, undefined, { headers });
    expect(first.status).toBe(202);
    expect(again.status).toBe(202);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
    // The webhook's own webhook.created is in its log too ("*"): one ping, not two.
    const log = await api.get(`${iri}/deliveries?type=webhook.ping`, { accept: 'application/json' });
    expect(log.body).toHaveLength(1);
  });
});

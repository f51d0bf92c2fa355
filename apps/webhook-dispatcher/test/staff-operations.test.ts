import { randomUUID } from 'node:crypto';
import { openApiOf, undocumented } from '../../../test/support/openapi-departures';
import { useDispatcher, waitFor } from './support/harness';

const SEARCH = '/internal/webhooks/events';

/**
 * The routes the orchestrator's back office calls for staff
 * (docs/partners.md "The back office: integrations, keys on four eyes, webhook deliveries"):
 * search, endpoint state, resend with an idempotency key.
 */
describe('dispatcher: staff webhook operations', () => {
  const t = useDispatcher();

  /** Events of an endpoint that does not exist yet: held, in the order received. */
  const held = async (endpointId: string, n: number, event = 'order.paid') => {
    const ids: string[] = [];
    for (let i = 0; i < n; i++) {
      const e = await t.dispatcher.enqueue(endpointId, { event });
      await waitFor(async () => (await t.dispatcher.event(e.id))?.status === 'held', 10_000, 'held');
      ids.push(e.id);
    }
    return ids;
  };

  it('one resend per idempotency key, whatever the number of identical requests at once', async () => {
    const [eventId] = await held(randomUUID(), 1);
    const key = randomUUID();
    const answers = await Promise.all(
      Array.from({ length: 6 }, () => t.dispatcher.api('POST', `/internal/webhooks/events/${eventId}/resend`, { idempotencyKey: key })),
    );
    expect(answers.map((a) => a.status)).toEqual(Array(6).fill(202));
    expect(new Set(answers.map((a) => a.body.jobId))).toEqual(new Set([`${eventId}-resend-1`]));
    expect(answers.filter((a) => a.body.repeated === false)).toHaveLength(1);
    expect((await t.dispatcher.event(eventId)).resendCount).toBe(1);

    // without a key, each call is a run of its own (the ops break-glass behaviour)
    const plain = await t.dispatcher.api('POST', `/internal/webhooks/events/${eventId}/resend`);
    expect(plain).toMatchObject({ status: 202, body: { jobId: `${eventId}-resend-2`, repeated: false } });
    const doc = await openApiOf(t.dispatcher.running.app);
    expect(undocumented(doc, 'POST', '/internal/webhooks/events/{eventId}/resend', answers[0])).toEqual([]);
  });

  const search = (q: Record<string, unknown>) => {
    const params = new URLSearchParams();
    for (const [k, v] of Object.entries(q)) params.set(k, Array.isArray(v) ? v.join(',') : String(v));
    return t.dispatcher.api('GET', `${SEARCH}?${params}`);
  };

  it('searches the events of some endpoints by status, type and time, newest first, a page at a time', async () => {
    const a = randomUUID();
    const b = randomUUID();
    const since = new Date(Date.now() - 1_000).toISOString();
    const ofA = await held(a, 3);
    const [ofB] = await held(b, 1, 'order.expired');
    const doc = await openApiOf(t.dispatcher.running.app);

    const first = await search({ endpointIds: [a], limit: 2 });
    expect(first.status).toBe(200);
    expect(first.body.data.map((e: { id: string }) => e.id)).toEqual([ofA[2], ofA[1]]);
    expect(undocumented(doc, 'GET', SEARCH, first)).toEqual([]);
    const second = await search({ endpointIds: [a], limit: 2, cursor: first.body.nextCursor });
    expect(second.body).toEqual({ data: [expect.objectContaining({ id: ofA[0], status: 'held', integrationId: a })], nextCursor: null });

    const both = await search({ endpointIds: [a, b], status: 'undelivered', since });
    expect(both.body.data.map((e: { id: string }) => e.id)).toEqual([ofB, ...[...ofA].reverse()]);
    // page by page across both endpoints: the same order, nothing repeated or skipped
    const paged: string[] = [];
    let next: string | undefined;
    do {
      const page = await search({ endpointIds: [b, a], limit: 1, ...(next ? { cursor: next } : {}) });
      paged.push(...page.body.data.map((e: { id: string }) => e.id));
      next = page.body.nextCursor ?? undefined;
    } while (next);
    expect(paged).toEqual([ofB, ...[...ofA].reverse()]);
    const expired = await search({ endpointIds: [a, b], eventType: 'order.expired' });
    expect(expired.body.data.map((e: { id: string }) => e.id)).toEqual([ofB]);
    const delivered = await search({ endpointIds: [a, b], status: 'delivered' });
    expect(delivered.body.data).toEqual([]);
    const later = await search({ endpointIds: [a], since: new Date(Date.now() + 60_000).toISOString() });
    expect(later.body.data).toEqual([]);

    const window = await search({ endpointIds: [a], since, until: since });
    expect(window).toMatchObject({ status: 400, body: { code: 'INVALID_TIME_WINDOW' } });
    const cursor = await search({ endpointIds: [a], cursor: 'bm90IGEgY3Vyc29y' });
    expect(cursor).toMatchObject({
      status: 400,
      body: { code: 'VALIDATION_ERROR', errors: [{ field: 'cursor', code: 'INVALID_CURSOR' }] },
    });
    // the right shape, but a day or an hour that does not exist: refused before PostgreSQL's cast
    for (const at of ['2026-13-45 10:00:00.012+00', '2026-02-30 10:00:00+00', '2026-11-22 25:00:00+00']) {
      const impossible = await search({ endpointIds: [a], cursor: Buffer.from(`${at}|${ofB}`).toString('base64url') });
      expect(impossible).toMatchObject({
        status: 400,
        body: { code: 'VALIDATION_ERROR', errors: [{ field: 'cursor', code: 'INVALID_CURSOR' }] },
      });
    }
    const none = await search({ endpointIds: [] });
    expect(none).toMatchObject({ status: 400, body: { code: 'VALIDATION_ERROR' } });
  });

  it("an endpoint's state: the endpoint, how many events it holds, its history", async () => {
    const endpointId = randomUUID();
    await t.dispatcher.setEndpoint(endpointId, t.receiver.url);
    await t.dispatcher.disableEndpoint(endpointId);
    await held(endpointId, 2);
    const state = await t.dispatcher.api('GET', `/internal/webhooks/endpoints/${endpointId}/state`);
    expect(state).toMatchObject({
      status: 200,
      body: { endpoint: { integrationId: endpointId, status: 'disabled' }, held: 2, history: [] },
    });
    const unknown = await t.dispatcher.api('GET', `/internal/webhooks/endpoints/${randomUUID()}/state`);
    expect(unknown).toMatchObject({ status: 404, body: { code: 'WEBHOOK_ENDPOINT_NOT_FOUND' } });
  });
});

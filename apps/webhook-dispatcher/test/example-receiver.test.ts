import { randomUUID } from 'node:crypto';
import { signatureHeader } from '@mm/webhook-signature';
import { type Envelope, type WebhookReceiver, createWebhookReceiver } from '../../../examples/webhook-receiver/receiver';

const SECRET = 'whsec_example_receiver_test';

describe('example receiver: what docs/partners.md "5. Webhooks" asks of a receiver', () => {
  let receiver: WebhookReceiver;
  let url = '';
  const handled: Envelope[] = [];
  let slowWorkDone = false;
  // The handler's work waits until the first test opens this gate: had the receiver waited for its
  // handler before answering, that test's POST could never get its 200 (no clock involved).
  let openGate: () => void = () => undefined;
  const workGate = new Promise<void>((resolve) => {
    openGate = resolve;
  });

  beforeAll(async () => {
    receiver = createWebhookReceiver({
      secrets: [SECRET],
      handlers: {
        'order.paid': async (e) => {
          // Long work runs after the 200 (answer within 5 s, queue slow work).
          await workGate;
          handled.push(e);
          slowWorkDone = true;
        },
      },
    });
    url = `http://127.0.0.1:${await receiver.listen()}/webhooks`;
  });
  // Open even if the first test failed before it did: a handler left waiting would hang the rest.
  afterAll(() => {
    openGate();
    return receiver.close();
  });

  const post = (body: string, headers: Record<string, string>) =>
    fetch(url, { method: 'POST', body, headers: { 'content-type': 'application/json', ...headers } });
  const signed = (envelope: object, t = Math.floor(Date.now() / 1000), secret = SECRET) => {
    const body = JSON.stringify(envelope);
    return { body, headers: { 'svc-signature': signatureHeader([secret], body, t), 'svc-event-id': (envelope as { id: string }).id } };
  };
  const event = (type = 'order.paid'): Envelope => ({
    event: type,
    id: randomUUID(),
    createdAt: new Date().toISOString(),
    data: { orderId: randomUUID(), amount: 5 },
  });

  it('answers 200 at once and does the work afterwards; a duplicate is acknowledged and ignored', async () => {
    const e = event();
    const { body, headers } = signed(e);
    const res = await post(body, headers);
    expect(res.status).toBe(200);
    expect(slowWorkDone).toBe(false);
    const dup = await post(body, signed(e).headers);
    expect(dup.status).toBe(200);
    openGate();
    await receiver.idle();
    expect(handled).toEqual([e]);
  });

  it('rejects with 400 a bad signature, a missing header, a tampered body and a t older than 5 minutes', async () => {
    const e = event();
    const good = signed(e);
    expect((await post(good.body, { 'svc-event-id': e.id })).status).toBe(400);
    expect((await post(good.body.replace('"amount":5', '"amount":6'), good.headers)).status).toBe(400);
    expect((await post(good.body, signed(e, undefined, 'whsec_other').headers)).status).toBe(400);
    const stale = signed(e, Math.floor(Date.now() / 1000) - 301);
    const res = await post(stale.body, stale.headers);
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ error: 'timestamp_out_of_tolerance' });
    await receiver.idle();
    expect(handled.find((h) => h.id === e.id)).toBeUndefined();
  });

  it('answers 200 to an unknown event type', async () => {
    const { body, headers } = signed(event('connection.activated'));
    expect((await post(body, headers)).status).toBe(200);
  });
});

import type { Redis } from 'ioredis';
import { REDIS } from '@mm/platform';
import { DevSmsSender } from '../src/notifications/dev-sms-sender';
import { OrchestratorHarness } from './pricing-harness';

/**
 * The orchestrator's development SMS box (welcome and payment messages) answers for one phone at a
 * time, never with everybody's messages.
 */
describe('orchestrator: GET /api/dev/sms shows one phone at a time', () => {
  const h = new OrchestratorHarness();
  const awa = '+237690007101';
  const jean = '+237690007102';

  beforeAll(async () => {
    await h.start();
    const outbox = h.get(DevSmsSender);
    await outbox.send(awa, 'Welcome Awa');
    await outbox.send(jean, 'You received 5 000 XAF, Jean');
  });
  afterAll(() => h.stop());

  const get = (url: string) => h.running.app.inject({ method: 'GET', url });

  it('refuses a request without a phone (REQUIRED) or with a malformed one, and shows no message', async () => {
    const missing = await get('/api/dev/sms');
    expect(missing.statusCode).toBe(400);
    expect(missing.json()).toMatchObject({ code: 'VALIDATION_ERROR', errors: [{ field: 'phone', code: 'REQUIRED' }] });
    const malformed = await get('/api/dev/sms?phone=690007101');
    expect(malformed.statusCode).toBe(400);
    expect(malformed.json().errors?.[0]).toMatchObject({ field: 'phone', code: 'INVALID_PHONE_FORMAT' });
    for (const res of [missing, malformed]) {
      expect(res.body).not.toContain('Welcome');
      expect(res.body).not.toContain('You received');
    }
  });

  it("answers with that phone's messages only", async () => {
    const res = await get(`/api/dev/sms?phone=${encodeURIComponent(jean)}`);
    expect(res.statusCode).toBe(200);
    expect(res.json().messages).toEqual([expect.objectContaining({ to: jean, text: 'You received 5 000 XAF, Jean' })]);
  });

  it('is one box for every replica: a message sent by one orchestrator process is read through another', async () => {
    // A second replica: its own sender on its own Redis connection, under the same REDIS_PREFIX.
    const connection = h.running.app.get<Redis>(REDIS).duplicate();
    try {
      if (connection.status !== 'ready') await new Promise((resolve) => connection.once('ready', resolve));
      const other = new DevSmsSender(connection);
      await other.send(jean, 'Your PIN was changed, Jean');
      const res = await get(`/api/dev/sms?phone=${encodeURIComponent(jean)}`);
      expect(res.json<{ messages: Array<{ text: string }> }>().messages.map((m) => m.text)).toEqual([
        'Your PIN was changed, Jean',
        'You received 5 000 XAF, Jean',
      ]);
      expect((await other.list(awa)).map((m) => m.text)).toEqual(['Welcome Awa']);
    } finally {
      connection.disconnect();
    }
  });
});

import type { Redis } from 'ioredis';
import { REDIS } from '@mm/platform';
import { DevSmsSender } from '../src/notifications/dev-sms-sender';
import { AuthHarness } from './support/auth-harness';

/**
 * The development SMS box holds every code sent (login, PIN reset, cash-out): it answers for one
 * phone at a time, never with everybody's messages.
 */
describe('auth: GET /auth/dev/sms shows one phone at a time', () => {
  const h = new AuthHarness();
  const awa = '+237690007001';
  const jean = '+237690007002';

  beforeAll(async () => {
    await h.start();
    const outbox = h.app.get(DevSmsSender);
    await outbox.send(awa, '111111 is your code for Awa');
    await outbox.send(jean, '222222 is your code for Jean');
  });
  afterAll(() => h.stop());

  it('refuses a request without a phone, and shows no message', async () => {
    for (const url of ['/auth/dev/sms', '/auth/dev/sms?phone=']) {
      const res = await h.request('GET', url);
      expect(res.statusCode).toBe(400);
      expect(res.json()).toMatchObject({ code: 'VALIDATION_ERROR', errors: [{ field: 'phone', code: expect.any(String) }] });
      expect(res.body).not.toContain('111111');
      expect(res.body).not.toContain('222222');
    }
    expect((await h.request('GET', '/auth/dev/sms')).json().errors?.[0]).toMatchObject({ field: 'phone', code: 'REQUIRED' });
  });

  it('refuses a phone that is not E.164', async () => {
    const res = await h.request('GET', '/auth/dev/sms?phone=690007001');
    expect(res.statusCode).toBe(400);
    expect(res.json().errors?.[0]).toMatchObject({ field: 'phone', code: 'INVALID_PHONE_FORMAT' });
  });

  it("answers with that phone's messages only", async () => {
    const res = await h.request('GET', `/auth/dev/sms?phone=${encodeURIComponent(awa)}`);
    expect(res.statusCode).toBe(200);
    expect(res.json<{ messages: Array<{ to: string; text: string }> }>().messages).toEqual([
      expect.objectContaining({ to: awa, text: '111111 is your code for Awa' }),
    ]);
  });

  it('is one box for every replica: a code sent by one auth process is read through another', async () => {
    // A second replica: its own sender on its own Redis connection, under the same REDIS_PREFIX.
    const connection = h.app.get<Redis>(REDIS).duplicate();
    try {
      if (connection.status !== 'ready') await new Promise((resolve) => connection.once('ready', resolve));
      const other = new DevSmsSender(connection);
      await other.send(awa, '333333 is your new code for Awa');
      const res = await h.request('GET', `/auth/dev/sms?phone=${encodeURIComponent(awa)}`);
      expect(res.json<{ messages: Array<{ text: string }> }>().messages.map((m) => m.text)).toEqual([
        '333333 is your new code for Awa',
        '111111 is your code for Awa',
      ]);
      expect((await other.list(jean)).map((m) => m.text)).toEqual(['222222 is your code for Jean']);
    } finally {
      connection.disconnect();
    }
  });
});

import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { DEV_SMS_KEEP_PER_PHONE, DEV_SMS_KEEP_SEC, DevSmsBox } from './dev-sms-box';

/** The development SMS box on the real Redis: shared by the replicas of a service, bounded per phone and in time. */
describe('DevSmsBox', () => {
  // The test namespace's shape lets the global teardown remove what a dead run left.
  const prefix = `mmtest:${process.pid}-${randomUUID().slice(0, 8)}`;
  const connect = () => new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', { keyPrefix: `${prefix}:`, maxRetriesPerRequest: 1 });
  let one: Redis;
  let two: Redis;

  beforeAll(() => {
    [one, two] = [connect(), connect()];
  });
  afterAll(async () => {
    const keys = await one.keys(`${prefix}:*`);
    if (keys.length > 0) await one.del(...keys.map((k) => k.slice(prefix.length + 1)));
    one.disconnect();
    two.disconnect();
  });

  it('is one box for two replicas of a service, and another for another service', async () => {
    const phone = '+237690007401';
    await new DevSmsBox(one, 'auth').keep(phone, 'code 111111');
    await new DevSmsBox(two, 'auth').keep(phone, 'code 222222');
    expect((await new DevSmsBox(two, 'auth').list(phone)).map((m) => m.text)).toEqual(['code 222222', 'code 111111']);
    expect(await new DevSmsBox(one, 'orchestrator').list(phone)).toEqual([]);
    expect(await new DevSmsBox(one, 'auth').list('+237690007402')).toEqual([]);
  });

  it(`keeps the newest ${DEV_SMS_KEEP_PER_PHONE} messages of a phone, for at most ${DEV_SMS_KEEP_SEC} s`, async () => {
    const phone = '+237690007403';
    const box = new DevSmsBox(one, 'auth');
    for (let i = 1; i <= DEV_SMS_KEEP_PER_PHONE + 5; i++) await box.keep(phone, `message ${i}`);
    const kept = await box.list(phone);
    expect(kept).toHaveLength(DEV_SMS_KEEP_PER_PHONE);
    expect(kept[0].text).toBe(`message ${DEV_SMS_KEEP_PER_PHONE + 5}`);
    expect(kept.at(-1)?.text).toBe('message 6');
    const [key] = await one.keys(`${prefix}:auth:dev-sms:*`);
    const ttl = await one.ttl(key.slice(prefix.length + 1));
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(DEV_SMS_KEEP_SEC);
  });
});

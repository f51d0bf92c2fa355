import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { verify } from '@mm/webhook-signature';
import { type TestDatabase, createTestDatabase, createTestRedis } from '../../../test/support/test-env';
import { startDispatcher, waitFor } from './support/harness';
import { RecordingReceiver } from './support/recording-receiver';

/**
 * Development without WEBHOOK_SECRET_ENCRYPTION_KEY: the key lives in a file (under `.data/` by
 * default) made on the first boot, so a secret stored before a restart still signs after it.
 * Production and test still refuse to boot without the variable (webhook-dispatcher.config.spec.ts).
 */
describe('development encryption key', () => {
  const redis = createTestRedis();
  let db: TestDatabase;
  let receiver: RecordingReceiver;
  let dir: string;

  beforeAll(async () => {
    db = await createTestDatabase();
    receiver = await new RecordingReceiver().start();
    dir = mkdtempSync(join(tmpdir(), 'mm-dispatcher-dev-'));
  });
  afterAll(async () => {
    await receiver?.stop();
    await db?.drop();
    await redis.flush();
    rmSync(dir, { recursive: true, force: true });
  });

  it('persists across two boots: a secret stored in the first signs deliveries of the second', async () => {
    const keyFile = join(dir, '.data', 'webhook-dispatcher', 'secret-encryption.key');
    const devEnv = { NODE_ENV: 'development', WEBHOOK_SECRET_ENCRYPTION_KEY: '', WEBHOOK_DEV_KEY_FILE: keyFile };
    const integrationId = randomUUID();

    const first = await startDispatcher(db, redis, devEnv);
    let secret: string;
    try {
      secret = await first.setEndpoint(integrationId, receiver.url);
    } finally {
      await first.close();
    }
    expect(statSync(keyFile).mode & 0o777).toBe(0o600);

    const second = await startDispatcher(db, redis, devEnv);
    try {
      const envelope = await second.enqueue(integrationId);
      await waitFor(async () => (await second.event(envelope.id))?.status === 'delivered', 10_000, 'delivered after the restart');
      const [request] = receiver.received.filter((r) => r.headers['svc-event-id'] === envelope.id);
      expect(verify(request.headers['svc-signature'], request.rawBody, secret).ok).toBe(true);
      expect(await second.attempts(envelope.id)).toEqual([expect.objectContaining({ attemptNumber: 1, statusCode: 200, errorCode: null })]);
    } finally {
      await second.close();
    }
  });
});

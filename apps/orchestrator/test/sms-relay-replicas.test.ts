import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Pool } from 'pg';
import type { DataSource } from 'typeorm';
import { HttpSmsSender } from '../src/notifications/http-sms-sender';
import { SmsOutbox } from '../src/notifications/sms-outbox.service';
import { SmsRelay } from '../src/notifications/sms-relay.service';
import type { OrchestratorConfig } from '../src/orchestrator.config';
import { type TestDatabase, createTestDatabase } from '../../../test/support/test-env';

interface Received {
  to: string;
  text: string;
  key: string | undefined;
}

/**
 * The SMS outbox relay on two replicas, with the provider's HTTP API played by a server in the
 * test. A replica that dies after the provider accepted a message and before the row was marked
 * sent leaves the row to be sent again by another replica: that try must carry the same
 * Idempotency-Key as the first, so that a provider honouring it sends the message once.
 */
describe('orchestrator: SMS outbox relay across replicas', () => {
  const received: Received[] = [];
  let provider: Server;
  let db: TestDatabase;
  let pool: Pool;
  let config: OrchestratorConfig;
  // The relay and the outbox only run statements: the service's own role on the file's database, without booting the app.
  const database = () =>
    ({ query: async (text: string, params?: unknown[]) => (await pool.query(text, params)).rows }) as unknown as DataSource;

  beforeAll(async () => {
    provider = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
      req.on('end', () => {
        const { to, text } = JSON.parse(body) as { to: string; text: string };
        received.push({ to, text, key: req.headers['idempotency-key'] as string | undefined });
        res.writeHead(202).end();
      });
    });
    await new Promise<void>((resolve) => provider.listen(0, '127.0.0.1', resolve));
    const port = (provider.address() as AddressInfo).port;
    db = await createTestDatabase();
    pool = new Pool({ connectionString: db.urlFor('orchestrator'), max: 2 });
    config = {
      SMS_PROVIDER_URL: `http://127.0.0.1:${port}/sms`,
      SMS_PROVIDER_TIMEOUT_MS: 2_000,
      SMS_MAX_ATTEMPTS: 3,
      SMS_RELAY_POLL_MS: 0,
    } as OrchestratorConfig;
  });
  afterAll(async () => {
    await pool?.end();
    await db?.drop();
    await new Promise((resolve) => provider.close(resolve));
  });

  // Two replicas: each its own relay and provider client, on the one database.
  const replica = () => new SmsRelay(config, database(), new HttpSmsSender(config));

  it('a message sent again by another replica after a crash carries the key of its first try', async () => {
    await new SmsOutbox(database()).enqueue({ dedupeKey: 'replicas:welcome', to: '+237690007301', text: 'Welcome' });
    expect(await replica().relayOnce()).toBe(1);
    const [{ id }] = (await pool.query<{ id: string }>(`SELECT id FROM orchestrator.sms_outbox WHERE dedupe_key = 'replicas:welcome'`))
      .rows;

    // The first replica died before marking it: the row is pending again once its lease ended.
    await pool.query(`UPDATE orchestrator.sms_outbox SET status = 'pending', sent_at = NULL, next_attempt_at = now() WHERE id = $1`, [id]);
    expect(await replica().relayOnce()).toBe(1);

    expect(received).toEqual([
      { to: '+237690007301', text: 'Welcome', key: id },
      { to: '+237690007301', text: 'Welcome', key: id },
    ]);
  });
});

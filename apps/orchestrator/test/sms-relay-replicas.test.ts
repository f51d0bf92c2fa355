import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DataSource } from 'typeorm';
import { JOB_LEASE } from '@mm/platform';
import { SmsOutbox } from '../src/notifications/sms-outbox.service';
import { SmsRelay } from '../src/notifications/sms-relay.service';
import { SmsSender } from '../src/notifications/sms-sender';
import { OrchestratorConfig } from '../src/orchestrator.config';
import { OrchestratorHarness } from './pricing-harness';

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
  const h = new OrchestratorHarness();
  const received: Received[] = [];
  let provider: Server;

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
    // The harness' own relay stays idle (poll 0): the test runs each replica's pass itself.
    await h.start({ SMS_DRIVER: 'http', SMS_PROVIDER_URL: `http://127.0.0.1:${port}/sms`, SMS_RELAY_POLL_MS: '0' });
  });
  afterAll(async () => {
    await h.stop();
    await new Promise((resolve) => provider.close(resolve));
  });

  const replica = () =>
    new SmsRelay(h.get(OrchestratorConfig), h.get(DataSource), h.running.app.get(SmsSender), h.running.app.get(JOB_LEASE));

  it('a message sent again by another replica after a crash carries the key of its first try', async () => {
    await h.get(SmsOutbox).enqueue({ dedupeKey: 'replicas:welcome', to: '+237690007301', text: 'Welcome' });
    expect(await replica().relayOnce()).toBe(1);
    const [{ id }] = (await h.sql.query<{ id: string }>(`SELECT id FROM orchestrator.sms_outbox WHERE dedupe_key = 'replicas:welcome'`))
      .rows;

    // The first replica died before marking it: the row is pending again once its lease ended.
    await h.sql.query(`UPDATE orchestrator.sms_outbox SET status = 'pending', sent_at = NULL, next_attempt_at = now() WHERE id = $1`, [id]);
    expect(await replica().relayOnce()).toBe(1);

    expect(received).toEqual([
      { to: '+237690007301', text: 'Welcome', key: id },
      { to: '+237690007301', text: 'Welcome', key: id },
    ]);
  });
});

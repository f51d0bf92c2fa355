import { ledgerWalletsApp } from '../src/ledger-wallets.app';
import type { LedgerWalletsConfig } from '../src/ledger-wallets.config';
import { uuidLockKey } from '../src/db/lock-keys';
import { type RunningApp, boot } from '../../../test/support/boot';
import { allowedCallerKey, createTestRedis, serviceEnv } from '../../../test/support/test-env';
import { metricSum } from './observe';
import { type Harness, contextFor, fundedAccount, invariants, pinVerifiedIntent, startLedger } from './ledger-harness';

const PAYERS = 8;
const SETTINGS = {
  // The test holds the merchant's lock while the confirms queue in both processes.
  LEDGER_LOCK_TIMEOUT_MS: '30000',
  DB_POOL_SIZE: String(PAYERS + 4),
};

/**
 * Group commit batches per process, by design: with two ledger replicas on one database, each forms
 * its own batches on the hot account. Correctness must not depend on that: the batches of both
 * processes take their advisory locks in the one global order and the idempotency key is the
 * database's, so the same confirm sent to both replicas at once moves the money once and both get
 * the same answer.
 */
describe('ledger: two replicas on one database, one hot merchant', () => {
  let h: Harness;
  let other: RunningApp<LedgerWalletsConfig>;
  const otherRedis = createTestRedis();

  beforeAll(async () => {
    h = await startLedger(SETTINGS);
    other = await boot(
      ledgerWalletsApp,
      serviceEnv('ledger-wallets', h.db, otherRedis, {
        ...SETTINGS,
        LEDGER_CONSENT_JWKS_URL: h.consent.jwksUrl,
        LEDGER_EXPIRY_SWEEP_INTERVAL_MS: '0',
        LEDGER_INTEGRITY_SCHEDULE_ENABLED: 'false',
        LEDGER_OUTBOX_POLL_MS: '0',
      }),
      { listen: true },
    );
  });
  afterAll(async () => {
    await other?.close();
    await otherRedis.flush();
    await h?.close();
  });

  const callOther = async (path: string, body: unknown, headers: Record<string, string>) => {
    const res = await fetch(`${other.url}${path}`, {
      method: 'POST',
      headers: { 'x-service-key': allowedCallerKey('ledger-wallets', 'POST', path), 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : undefined };
  };

  it('the same confirms sent to both replicas at once each move the money once, with one answer', async () => {
    const merchant = await fundedAccount(h, 0, 'XAF', 'MERCHANT');
    const before = await invariants(h.admin);
    const payers: { id: string; source: string }[] = [];
    for (let k = 0; k < PAYERS; k++) {
      const source = await fundedAccount(h, 1_000);
      payers.push({ id: await pinVerifiedIntent(h, source, merchant, 100), source });
    }

    const grouped = async () => [
      await metricSum(h.app.url, 'ledger_grouped_operations_total'),
      await metricSum(other.url, 'ledger_grouped_operations_total'),
    ];
    const grouped0 = await grouped();
    const merchantKey = uuidLockKey(merchant).toString();
    await h.admin.query('SELECT pg_advisory_lock($1::bigint)', [merchantKey]);
    const confirm = (p: { id: string; source: string }, at: 'one' | 'other') => {
      const path = `/v1/internal/intents/${p.id}/transition`;
      const body = {
        toStatus: 'SUCCEEDED',
        actor: { id: 'user-1' },
        executionContext: contextFor(p.source, merchant, 100, { fee: { amount: 10 } }),
      };
      const headers = { 'x-idempotency-key': `confirm:${p.id}` };
      return at === 'one' ? h.call('POST', path, body, headers) : callOther(path, body, headers);
    };
    // A definite answer, as the orchestrator insists on one: the same request again while it is not.
    const untilDefinite = async (p: { id: string; source: string }, at: 'one' | 'other') => {
      for (let attempt = 0; ; attempt++) {
        const res = await confirm(p, at);
        if (res.status < 500 && res.status !== 409) return res;
        if (attempt >= 20) throw new Error(`no definite answer: ${res.status} ${JSON.stringify(res.body)}`);
        await new Promise((r) => setTimeout(r, 100));
      }
    };
    // Half the confirms to each replica: both queue batches on the merchant behind the held lock.
    const sides = payers.map((_, k): ['one' | 'other', 'one' | 'other'] => (k % 2 === 0 ? ['one', 'other'] : ['other', 'one']));
    const firsts = payers.map((p, k) => untilDefinite(p, sides[k][0]));
    const deadline = Date.now() + 20_000;
    const waiting = async () => [
      await metricSum(h.app.url, 'ledger_group_commit_waiting'),
      await metricSum(other.url, 'ledger_group_commit_waiting'),
    ];
    while ((await waiting()).some((n) => n < 2)) {
      if (Date.now() > deadline) throw new Error(`the confirms did not queue in both processes: ${JSON.stringify(await waiting())}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    // Then each confirm again, same key, at the other replica, while the first is still queued.
    const seconds = payers.map((p, k) => untilDefinite(p, sides[k][1]));
    await new Promise((r) => setTimeout(r, 200));
    await h.admin.query('SELECT pg_advisory_unlock($1::bigint)', [merchantKey]);

    const answers = await Promise.all([Promise.all(firsts), Promise.all(seconds)]);
    for (const [k, one] of answers[0].entries()) {
      const two = answers[1][k];
      expect(one.status).toBe(200);
      expect(one.body).toMatchObject({ status: 'SUCCEEDED', fee: 10 });
      expect(JSON.stringify(two.body)).toBe(JSON.stringify(one.body));
    }
    // Both processes committed batches of several confirms on the merchant.
    const grouped1 = await grouped();
    expect(grouped1[0] - grouped0[0]).toBeGreaterThanOrEqual(2);
    expect(grouped1[1] - grouped0[1]).toBeGreaterThanOrEqual(2);
    expect((await h.call('GET', `/v1/internal/accounts/${merchant}`)).body.balance).toBe(100 * PAYERS);
    const after = await invariants(h.admin);
    expect(after).toMatchObject({ ledgerGaps: 0, splitGaps: 0, intentMismatches: 0, unbalancedTransactions: 0 });
    expect(after.totals).toEqual(before.totals);
  }, 60_000);
});

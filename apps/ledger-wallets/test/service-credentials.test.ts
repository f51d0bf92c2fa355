import { randomUUID } from 'node:crypto';
import { formatTrustedCallers, newServiceKey, serviceKeyDigest } from '@mm/platform';
import { TEST_SERVICE_KEYS, callerKey } from '../../../test/support/test-env';
import { type Harness, balanceOf, contextFor, fundedAccount, intentBody, startLedger } from './ledger-harness';

/** Rows of every table a money move or an intent writes. */
async function footprint(h: Harness): Promise<Record<string, number>> {
  const tables = ['transaction_intents', 'intent_events', 'idempotency_keys', 'intent_qr_locks', 'transactions', 'ledgers', 'outbox'];
  const out: Record<string, number> = {};
  for (const table of tables) out[table] = Number((await h.admin.query(`SELECT count(*) n FROM ledger.${table}`)).rows[0].n);
  return out;
}

describe('ledger: a leaked partners credential cannot move money', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startLedger();
  });
  afterAll(() => h.close());

  it('refuses to create an intent with 403 SERVICE_NOT_ALLOWED and writes nothing; the same request from the orchestrator succeeds', async () => {
    const source = await fundedAccount(h, 50_000);
    const destination = await fundedAccount(h, 0);
    const body = intentBody(source, destination, 10_000);
    const before = await footprint(h);
    const balance = await balanceOf(h, source);

    const leaked = await h.call('POST', '/v1/internal/intents', body, { 'x-service-key': callerKey('partners') });
    expect(leaked.status).toBe(403);
    expect(leaked.body.code).toBe('SERVICE_NOT_ALLOWED');
    // no other service either, nor operators (they correct balances under maker-checker, not through intents)
    for (const other of ['auth', 'webhook-dispatcher', 'ops'] as const) {
      const res = await h.call('POST', '/v1/internal/intents', body, { 'x-service-key': callerKey(other) });
      expect([res.status, res.body.code]).toEqual([403, 'SERVICE_NOT_ALLOWED']);
    }
    // the ledger's own key, or a made-up one, is nobody's credential here
    for (const key of [callerKey('ledger-wallets'), newServiceKey()]) {
      const res = await h.call('POST', '/v1/internal/intents', body, { 'x-service-key': key });
      expect([res.status, res.body.code]).toEqual([401, 'INVALID_SERVICE_CREDENTIALS']);
    }
    expect(await footprint(h)).toEqual(before);
    expect(await balanceOf(h, source)).toEqual(balance);

    // the request itself was valid: the orchestrator's key creates the intent (and freezes the amount)
    const created = await h.call('POST', '/v1/internal/intents', body, { 'x-service-key': callerKey('orchestrator') });
    expect(created.status).toBe(201);
    expect((await balanceOf(h, source)).frozenBalance).toBe(10_000);
  });

  it('refuses the transitions of an existing intent to partners, and leaves it where it was', async () => {
    const source = await fundedAccount(h, 20_000);
    const destination = await fundedAccount(h, 0);
    const created = await h.call('POST', '/v1/internal/intents', intentBody(source, destination, 5_000));
    expect(created.status).toBe(201);
    const id = created.body.intentId as string;
    const before = await footprint(h);

    for (const move of [
      { toStatus: 'CANCELLED', actor: { id: 'user-1' } },
      { toStatus: 'SUCCEEDED', actor: { id: 'user-1' }, executionContext: contextFor(source, destination, 5_000) },
    ]) {
      const res = await h.call('POST', `/v1/internal/intents/${id}/transition`, move, {
        'x-service-key': callerKey('partners'),
        'x-idempotency-key': randomUUID(),
      });
      expect([res.status, res.body.code]).toEqual([403, 'SERVICE_NOT_ALLOWED']);
    }
    // partners may not even read the intent, nor open or close a wallet
    expect((await h.call('GET', `/v1/internal/intents/${id}`, undefined, { 'x-service-key': callerKey('partners') })).status).toBe(403);
    const wallet = await h.call(
      'POST',
      '/v1/internal/wallets',
      { ownerType: 'USER', ownerId: randomUUID() },
      { 'x-service-key': callerKey('partners') },
    );
    expect(wallet.status).toBe(403);
    expect(await footprint(h)).toEqual(before);
    expect((await h.call('GET', `/v1/internal/intents/${id}`)).body.status).toBe('CREATED');
  });
});

describe('ledger: rotating the orchestrator key without downtime', () => {
  it('takes the old and the new key during the overlap, then only the new one', async () => {
    const oldKey = callerKey('orchestrator');
    const newKey = newServiceKey();
    const trusted = (orchestrator: string[]) =>
      formatTrustedCallers({ orchestrator: orchestrator.map(serviceKeyDigest), ops: [serviceKeyDigest(TEST_SERVICE_KEYS.ops)] });

    const overlap = await startLedger({ INTERNAL_TRUSTED_CALLERS: trusted([oldKey, newKey]) });
    try {
      for (const key of [oldKey, newKey]) {
        const res = await overlap.call('GET', '/v1/internal/technical-accounts', undefined, { 'x-service-key': key });
        expect(res.status).toBe(200);
      }
    } finally {
      await overlap.close();
    }

    const after = await startLedger({ INTERNAL_TRUSTED_CALLERS: trusted([newKey]) });
    try {
      const old = await after.call('GET', '/v1/internal/technical-accounts', undefined, { 'x-service-key': oldKey });
      expect([old.status, old.body.code]).toEqual([401, 'INVALID_SERVICE_CREDENTIALS']);
      const current = await after.call('GET', '/v1/internal/technical-accounts', undefined, { 'x-service-key': newKey });
      expect(current.status).toBe(200);
    } finally {
      await after.close();
    }
  });
});

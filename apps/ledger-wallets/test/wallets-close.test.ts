import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { openApiOf, undocumented } from '../../../test/support/openapi-departures';
import { uuidLockKey } from '../src/db/lock-keys';
import {
  type Harness,
  balanceOf,
  contextFor,
  fundedAccount,
  intentBody,
  invariants,
  pinVerifiedIntent,
  startLedger,
} from './ledger-harness';

describe('ledger: closing an unused wallet (registration compensation)', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startLedger();
  });
  afterAll(() => h.close());

  const close = (ownerType: string, ownerId: string) => h.call('POST', '/v1/internal/wallets/close', { ownerType, ownerId });

  it('closes a fresh wallet, idempotently; an owner without a wallet is ABSENT', async () => {
    const ownerId = randomUUID();
    const created = await h.call('POST', '/v1/internal/wallets', { ownerType: 'USER', ownerId });
    expect(created.status).toBe(201);
    for (let i = 0; i < 2; i++) {
      const res = await close('USER', ownerId);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ walletId: created.body.id, status: 'CLOSED' });
    }
    const after = await h.call('GET', `/v1/internal/wallets/${created.body.id}`, undefined);
    expect(after.body.status).toBe('CLOSED');
    expect((await close('USER', randomUUID())).body).toEqual({ walletId: null, status: 'ABSENT' });
  });

  it('refuses a wallet money went through: 409 WALLET_NOT_EMPTY, wallet untouched', async () => {
    const ownerId = randomUUID();
    const created = await h.call('POST', '/v1/internal/wallets', { ownerType: 'MERCHANT', ownerId });
    const account = created.body.accounts.find((a: { currency: string }) => a.currency === 'XAF').id as string;
    // an entry on the account, the way the ledger's own tests arrange balances
    await h.admin.query(`UPDATE ledger.accounts SET balance = 100, available_balance = 100 WHERE id = $1`, [account]);
    const res = await close('MERCHANT', ownerId);
    expect(res.status).toBe(409);
    expect(res.body.code).toBe('WALLET_NOT_EMPTY');
    const after = await h.call('GET', `/v1/internal/wallets/${created.body.id}`, undefined);
    expect(after.body.status).toBe('ACTIVE');
  });

  it('validates the owner and needs the service key', async () => {
    expect((await close('PERSON', 'x')).body.code).toBe('VALIDATION_ERROR');
    const anonymous = await h.call(
      'POST',
      '/v1/internal/wallets/close',
      { ownerType: 'USER', ownerId: 'x' },
      { 'x-service-key': 'not-the-key' },
    );
    expect(anonymous.body.code).toBe('INVALID_SERVICE_CREDENTIALS');
  });

  /** A fresh USER wallet with one XAF account: its id and the account's. */
  const userWallet = async (): Promise<{ ownerId: string; walletId: string; account: string }> => {
    const ownerId = randomUUID();
    const res = await h.call('POST', '/v1/internal/wallets', { ownerType: 'USER', ownerId, currencies: ['XAF'] });
    expect(res.status).toBe(201);
    return { ownerId, walletId: res.body.id, account: res.body.accounts[0].id };
  };
  const intentsOn = async (account: string) =>
    Number(
      (
        await h.admin.query(
          `SELECT count(*) AS n FROM ledger.transaction_intents WHERE source_account_id = $1 OR destination_account_id = $1`,
          [account],
        )
      ).rows[0].n,
    );
  /**
   * The invariants helper, held to what it said when the test began: nothing a test below does may
   * open a gap or move a total (an earlier test arranges a balance without entries on purpose).
   */
  const invariantsUnchanged = async () => {
    const before = await invariants(h.admin);
    return async () => expect(await invariants(h.admin)).toEqual(before);
  };

  it('a closed wallet neither receives nor sends: the creation is 400 ACCOUNT_NOT_ALLOWED and nothing is held', async () => {
    const stillClean = await invariantsUnchanged();
    const source = await fundedAccount(h, 10_000);
    const closed = await userWallet();
    expect((await close('USER', closed.ownerId)).body.status).toBe('CLOSED');

    // Into the closed wallet: refused, the source's purse untouched, no intent written.
    const into = await h.call('POST', '/v1/internal/intents', intentBody(source, closed.account, 100));
    expect({ status: into.status, code: into.body.code }).toEqual({ status: 400, code: 'ACCOUNT_NOT_ALLOWED' });
    expect(into.body.message).toContain('destination');
    // Out of it: the wallet's own refusal, not its (empty) balance.
    const outOf = await h.call('POST', '/v1/internal/intents', intentBody(closed.account, source, 100));
    expect({ status: outOf.status, code: outOf.body.code }).toEqual({ status: 400, code: 'ACCOUNT_NOT_ALLOWED' });

    // A wallet closed with money on it (only SQL can do that) still sends nothing: the status
    // answers, not the balance. SUSPENDED (set by nothing in the ledger yet) is refused alike.
    for (const status of ['CLOSED', 'SUSPENDED']) {
      const rich = await fundedAccount(h, 1_000);
      await h.admin.query(`UPDATE ledger.wallets SET status = $2 WHERE id = (SELECT wallet_id FROM ledger.accounts WHERE id = $1)`, [
        rich,
        status,
      ]);
      for (const [from, to, side] of [
        [rich, source, 'source'],
        [source, rich, 'destination'],
      ]) {
        const res = await h.call('POST', '/v1/internal/intents', intentBody(from, to, 100));
        expect({ status: res.status, code: res.body.code, message: res.body.message }).toEqual({
          status: 400,
          code: 'ACCOUNT_NOT_ALLOWED',
          message: `The ${side} account's wallet is ${status}: only an ACTIVE wallet sends or receives money; nothing was held`,
        });
      }
      expect(await balanceOf(h, rich)).toMatchObject({ balance: 1_000, availableBalance: 1_000, frozenBalance: 0 });
      expect(await intentsOn(rich)).toBe(0);
    }
    expect(await balanceOf(h, source)).toMatchObject({ balance: 10_000, availableBalance: 10_000, frozenBalance: 0 });
    expect(await intentsOn(closed.account)).toBe(0);
    expect(await intentsOn(source)).toBe(0);
    expect((await h.call('GET', `/v1/internal/wallets/${closed.walletId}`)).body.accounts[0].balance).toBe(0);
    await stillClean();
  });

  it('an intent created before the close: the route refuses to close; closed anyway, its confirm is refused and nothing moves', async () => {
    const stillClean = await invariantsUnchanged();
    const payer = await fundedAccount(h, 10_000);
    const payee = await userWallet();
    const id = await pinVerifiedIntent(h, payer, payee.account, 100);

    // The real behaviour of the route: an intent on the wallet's account is money in flight.
    const refused = await close('USER', payee.ownerId);
    expect({ status: refused.status, code: refused.body.code }).toEqual({ status: 409, code: 'WALLET_NOT_EMPTY' });
    expect((await h.call('GET', `/v1/internal/wallets/${payee.walletId}`)).body.status).toBe('ACTIVE');

    // Closed all the same (by SQL, as an operator could): the confirm judges the status on its locked rows.
    await h.admin.query(`UPDATE ledger.wallets SET status = 'CLOSED' WHERE id = $1`, [payee.walletId]);
    const confirm = await h.call(
      'POST',
      `/v1/internal/intents/${id}/transition`,
      { toStatus: 'SUCCEEDED', actor: { id: 'user-1' }, executionContext: contextFor(payer, payee.account, 100) },
      { 'x-idempotency-key': randomUUID() },
    );
    expect({ status: confirm.status, code: confirm.body.code }).toEqual({ status: 400, code: 'ACCOUNT_NOT_ALLOWED' });
    expect((await h.call('GET', `/v1/internal/intents/${id}`)).body.status).toBe('PIN_VERIFIED');
    expect(await balanceOf(h, payer)).toMatchObject({ balance: 10_000, availableBalance: 9_900, frozenBalance: 100 });
    expect(await balanceOf(h, payee.account)).toMatchObject({ balance: 0, availableBalance: 0, frozenBalance: 0 });
    expect(Number((await h.admin.query(`SELECT count(*) AS n FROM ledger.transactions WHERE intent_id = $1`, [id])).rows[0].n)).toBe(0);

    // The same from the other side: the payer's wallet closed under its own intent.
    const payee2 = await fundedAccount(h, 0);
    const id2 = await pinVerifiedIntent(h, payer, payee2, 50);
    const payerWallet = (await h.admin.query(`SELECT wallet_id FROM ledger.accounts WHERE id = $1`, [payer])).rows[0].wallet_id;
    await h.admin.query(`UPDATE ledger.wallets SET status = 'CLOSED' WHERE id = $1`, [payerWallet]);
    const confirm2 = await h.call('POST', `/v1/internal/intents/${id2}/transition`, {
      toStatus: 'SUCCEEDED',
      actor: { id: 'user-1' },
      executionContext: contextFor(payer, payee2, 50),
    });
    expect({ status: confirm2.status, code: confirm2.body.code }).toEqual({ status: 400, code: 'ACCOUNT_NOT_ALLOWED' });
    expect(await balanceOf(h, payee2)).toMatchObject({ balance: 0 });

    // What a closed wallet still allows: ending the intents gives the holds back.
    for (const intent of [id, id2]) {
      const canceled = await h.call('POST', `/v1/internal/intents/${intent}/transition`, { toStatus: 'CANCELED', actor: { id: 'user-1' } });
      expect(canceled.status).toBe(200);
    }
    expect(await balanceOf(h, payer)).toMatchObject({ balance: 10_000, availableBalance: 10_000, frozenBalance: 0 });
    await stillClean();
  });

  it('the close waits for a money operation holding one of its accounts, then sees what it wrote', async () => {
    const stillClean = await invariantsUnchanged();
    const target = await userWallet();
    const payer = await fundedAccount(h, 1_000);
    const other = new Client({ connectionString: h.db.adminUrl });
    await other.connect();
    try {
      // A money operation on the wallet's account in flight: it holds the account's advisory lock
      // (as creation, confirms and holds do) and commits an intent on it before letting go.
      await other.query('SELECT pg_advisory_lock($1)', [uuidLockKey(target.account).toString()]);
      let answered = false;
      const closing = close('USER', target.ownerId).then((res) => {
        answered = true;
        return res;
      });
      await new Promise((r) => setTimeout(r, 300));
      expect(answered).toBe(false);
      await other.query(
        `INSERT INTO ledger.transaction_intents (type, status, idempotency_key, source_account_id, destination_account_id, amount, fee,
           frozen_amount, currency, initiated_by, expires_at)
         VALUES ('TRANSFER', 'CREATED', $1, $2, $3, 100, 0, 0, 'XAF', 'in-flight', now() + interval '10 minutes')`,
        [randomUUID(), payer, target.account],
      );
      await other.query('SELECT pg_advisory_unlock_all()');
      const res = await closing;
      expect({ status: res.status, code: res.body.code }).toEqual({ status: 409, code: 'WALLET_NOT_EMPTY' });
      expect((await h.call('GET', `/v1/internal/wallets/${target.walletId}`)).body.status).toBe('ACTIVE');
    } finally {
      await other.end();
    }
    await stillClean();
  });

  it('a creation paying into the wallet while it is closed: they cannot both commit, the creation is refused', async () => {
    const stillClean = await invariantsUnchanged();
    const payer = await fundedAccount(h, 1_000);
    const target = await userWallet();
    // An intent of another pair, whose QR row a second connection inserts without committing: a
    // creation with that QR token then stops inside its transaction, after it read the wallet's
    // status and wrote its intent, until that connection rolls back.
    const blockerPayer = await fundedAccount(h, 1_000);
    const blockerPayee = await fundedAccount(h, 0);
    const blocker = await h.call('POST', '/v1/internal/intents', intentBody(blockerPayer, blockerPayee, 10));
    expect(blocker.status).toBe(201);
    const qrToken = `qr-${randomUUID()}`;
    const other = new Client({ connectionString: h.db.adminUrl });
    await other.connect();
    try {
      await other.query('BEGIN');
      await other.query(`INSERT INTO ledger.intent_qr_locks (qr_token, intent_id) VALUES ($1, $2)`, [qrToken, blocker.body.intentId]);
      const creating = h.call('POST', '/v1/internal/intents', intentBody(payer, target.account, 100, { qrToken }));
      // The creation is in flight once it waits on that QR row.
      for (let i = 0; ; i++) {
        const { rows } = await h.admin.query(
          `SELECT count(*) AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'
              AND query LIKE '%intent_qr_locks%' AND pid <> $1`,
          [(await other.query('SELECT pg_backend_pid() AS pid')).rows[0].pid],
        );
        if (Number(rows[0].n) > 0) break;
        if (i > 100) throw new Error('the creation never reached its QR lock');
        await new Promise((r) => setTimeout(r, 20));
      }
      const closed = await close('USER', target.ownerId);
      await other.query('ROLLBACK');
      const created = await creating;
      const wallet = (await h.call('GET', `/v1/internal/wallets/${target.walletId}`)).body;
      const outcome = { close: closed.status, create: created.status, code: created.body.code, wallet: wallet.status };
      // Serializable: the close committed first, so the creation's replay saw the wallet CLOSED.
      expect(outcome).toEqual({ close: 200, create: 400, code: 'ACCOUNT_NOT_ALLOWED', wallet: 'CLOSED' });
      expect(await intentsOn(target.account)).toBe(0);
      expect(await balanceOf(h, payer)).toMatchObject({ balance: 1_000, availableBalance: 1_000, frozenBalance: 0 });
    } finally {
      await other.end();
    }
    await stillClean();
  });

  it('answers exactly what its OpenAPI document says: every success body of every wallet route', async () => {
    const doc = await openApiOf(h.app.app);
    const ownerId = randomUUID();
    const answers: Array<[string, string, { status: number; body: unknown }]> = [];
    const call = async (method: string, path: string, documented: string, body?: unknown) => {
      const res = await h.call(method, path, body);
      answers.push([method, documented, res]);
      return res;
    };
    // An agent (two account types per currency, a holder name) and a user without a name (holderName null).
    const created = await call('POST', '/v1/internal/wallets', '/v1/internal/wallets', {
      ownerType: 'AGENT',
      ownerId,
      holderName: 'Awa Ndiaye',
    });
    await call('POST', '/v1/internal/wallets', '/v1/internal/wallets', { ownerType: 'AGENT', ownerId });
    await call('POST', '/v1/internal/wallets', '/v1/internal/wallets', { ownerType: 'USER', ownerId: randomUUID(), currencies: ['XOF'] });
    await call('GET', `/v1/internal/wallets?ownerType=AGENT&ownerId=${ownerId}`, '/v1/internal/wallets');
    await call('GET', `/v1/internal/wallets/${created.body.id}`, '/v1/internal/wallets/{id}');
    await call('GET', `/v1/internal/accounts/${created.body.accounts[0].id}`, '/v1/internal/accounts/{id}');
    await call('GET', '/v1/internal/technical-accounts', '/v1/internal/technical-accounts');
    await call('GET', '/v1/internal/technical-accounts?currency=XOF', '/v1/internal/technical-accounts');
    await call('POST', '/v1/internal/wallets/close', '/v1/internal/wallets/close', { ownerType: 'AGENT', ownerId });
    await call('POST', '/v1/internal/wallets/close', '/v1/internal/wallets/close', { ownerType: 'AGENT', ownerId: randomUUID() });
    expect(answers.map(([method, path, res]) => `${method} ${path} ${res.status}`)).toEqual([
      'POST /v1/internal/wallets 201',
      'POST /v1/internal/wallets 200',
      'POST /v1/internal/wallets 201',
      'GET /v1/internal/wallets 200',
      'GET /v1/internal/wallets/{id} 200',
      'GET /v1/internal/accounts/{id} 200',
      'GET /v1/internal/technical-accounts 200',
      'GET /v1/internal/technical-accounts 200',
      'POST /v1/internal/wallets/close 200',
      'POST /v1/internal/wallets/close 200',
    ]);
    expect(created.body.accounts).toHaveLength(4);
    expect((answers[6][2].body as unknown[]).length).toBeGreaterThan(0);
    expect(answers.flatMap(([method, path, res]) => undocumented(doc, method, path, res))).toEqual([]);
  });
});

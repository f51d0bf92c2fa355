import { randomUUID } from 'node:crypto';
import { TEST_CHECKER, TEST_MAKER, type TestOperator, bearer, correctBalance } from '../../../test/support/funding';
import { openApiOf, undocumented } from '../../../test/support/openapi-departures';
import { balanceOf, fundedAccount, invariants } from './ledger-harness';
import { ADMIN_2, SUPPORT, recordAlerts, useOperatorLedger } from './operators';

/** The default compliance limit: above it only a compliance officer approves. */
const COMPLIANCE_LIMIT = 1_000_000;

/**
 * Corrections under maker-checker
 * (docs/ledger-corrections.md "What an approval writes", "Compliance alert"): a maker submits, a
 * different operator with an approver role approves, and only then the signed adjustment is
 * written; every step is journaled and the compliance channel hears of every executed correction.
 */
describe('ledger: balance corrections under maker-checker', () => {
  const alerts: Record<string, unknown>[] = [];
  const t = useOperatorLedger({ onAlert: recordAlerts(alerts) });

  const submit = async (accountId: string, amount: number, direction = 'CREDIT', maker = TEST_MAKER) =>
    t.h.call(
      'POST',
      '/v1/internal/corrections',
      { idempotencyKey: randomUUID(), accountId, direction, amount, reason: 'bank statement reconciliation' },
      await t.as(maker),
    );
  const approve = async (id: string, checker: TestOperator) =>
    t.h.call('POST', `/v1/internal/corrections/${id}/approve`, { reason: 'checked' }, await t.as(checker));

  it('the same user cannot make and check: 403 CORRECTION_SAME_USER, nothing moves, and the database refuses it too', async () => {
    const account = await fundedAccount(t.h, 0);
    const submitted = await submit(account, 5_000);
    expect(submitted.status).toBe(201);
    const self = await approve(submitted.body.id, TEST_MAKER);
    expect([self.status, self.body.code]).toEqual([403, 'CORRECTION_SAME_USER']);
    // Same person, other role in the token: still the same user.
    const sameUserOtherRole = await approve(submitted.body.id, { id: TEST_MAKER.id, roles: ['COMPLIANCE'] });
    expect(sameUserOtherRole.body.code).toBe('CORRECTION_SAME_USER');
    expect((await t.h.call('GET', `/v1/internal/corrections/${submitted.body.id}`, undefined, await t.as(TEST_MAKER))).body.status).toBe(
      'PENDING_APPROVAL',
    );
    expect((await balanceOf(t.h, account)).balance).toBe(0);
    const raw = await t.h.admin
      .query(
        `UPDATE ledger.corrections SET status = 'REJECTED', checker_id = maker_id, checker_roles = '{}', decided_at = now() WHERE id = $1`,
        [submitted.body.id],
      )
      .catch((e: unknown) => e);
    expect(raw).toMatchObject({ code: '23514', constraint: 'CHK_corrections_distinct_checker' });
  });

  it('submit records a request only; a different approver executes the signed adjustment against suspense and compliance is alerted', async () => {
    const account = await fundedAccount(t.h, 0);
    const submitted = await submit(account, 25_000);
    expect(submitted.status).toBe(201);
    expect(submitted.body).toMatchObject({
      status: 'PENDING_APPROVAL',
      accountId: account,
      direction: 'CREDIT',
      amount: 25_000,
      currency: 'XAF',
      requiresCompliance: false,
      maker: { id: TEST_MAKER.id, roles: TEST_MAKER.roles },
      checker: null,
      transactionId: null,
    });
    expect((await balanceOf(t.h, account)).balance).toBe(0);

    const approved = await approve(submitted.body.id, TEST_CHECKER);
    expect(approved.status).toBe(200);
    expect(approved.body).toMatchObject({
      status: 'EXECUTED',
      checker: { id: TEST_CHECKER.id, roles: TEST_CHECKER.roles, reason: 'checked' },
    });
    expect(approved.body.alertedAt).not.toBeNull();
    expect(approved.body.events.map((e: { event: string; actorId: string }) => [e.event, e.actorId])).toEqual([
      ['submitted', TEST_MAKER.id],
      ['approved', TEST_CHECKER.id],
      ['executed', TEST_CHECKER.id],
      ['alert_sent', 'system:compliance-alert'],
    ]);
    expect(approved.body.events[0].reason).toBe('bank statement reconciliation');
    expect(await balanceOf(t.h, account)).toMatchObject({ balance: 25_000, availableBalance: 25_000 });
    const entries = await t.h.admin.query(
      `SELECT l.kind, l.amount::int, a.account_type, t.type, t.created_by, t.metadata
       FROM ledger.ledgers l JOIN ledger.accounts a ON a.id = l.account_id JOIN ledger.transactions t ON t.id = l.transaction_id
       WHERE t.id = $1 ORDER BY l.kind`,
      [approved.body.transactionId],
    );
    expect(entries.rows.map((r) => [r.kind, r.amount, r.account_type, r.type])).toEqual([
      ['CREDIT', 25_000, 'customer', 'ADJUSTMENT'],
      ['DEBIT', 25_000, 'suspense', 'ADJUSTMENT'],
    ]);
    expect(entries.rows[0].metadata).toMatchObject({
      typeCode: 'CORRECTION_CREDIT',
      correctionId: submitted.body.id,
      makerId: TEST_MAKER.id,
      checkerId: TEST_CHECKER.id,
      signedAmount: 25_000,
    });
    expect(alerts.find((a) => a.correctionId === submitted.body.id)).toMatchObject({
      kind: 'correction.executed',
      amount: 25_000,
      makerId: TEST_MAKER.id,
      checkerId: TEST_CHECKER.id,
      transactionId: approved.body.transactionId,
    });
    // Decided is final: a second decision is refused, and so is a raw rewrite.
    const again = await approve(submitted.body.id, ADMIN_2);
    expect([again.status, again.body.code]).toEqual([409, 'CORRECTION_ALREADY_DECIDED']);
    const rewrite = await t.h.admin
      .query(`UPDATE ledger.corrections SET amount = 1 WHERE id = $1`, [submitted.body.id])
      .catch((e: unknown) => e);
    expect(String(rewrite)).toMatch(/is EXECUTED and final/);
    expect((await invariants(t.h.admin)).ledgerGaps).toBe(0);
  });

  it('needs an approver role to check and a maker role to submit', async () => {
    const account = await fundedAccount(t.h, 0);
    const bySupport = await submit(account, 100, 'CREDIT', SUPPORT);
    expect([bySupport.status, bySupport.body.code]).toEqual([403, 'OPERATOR_ROLE_REQUIRED']);
    const submitted = await submit(account, 100);
    const checkedBySupport = await approve(submitted.body.id, SUPPORT);
    expect([checkedBySupport.status, checkedBySupport.body.code]).toEqual([403, 'OPERATOR_ROLE_REQUIRED']);
    expect((await approve(submitted.body.id, ADMIN_2)).body.status).toBe('EXECUTED');
    const customerRead = await t.h.call(
      'GET',
      `/v1/internal/corrections/${submitted.body.id}`,
      undefined,
      await t.as({ id: 'u-9', roles: ['CUSTOMER'] }),
    );
    expect([customerRead.status, customerRead.body.code]).toEqual([403, 'OPERATOR_ROLE_REQUIRED']);
    const pending = await t.h.call('GET', '/v1/internal/corrections?status=EXECUTED&limit=5', undefined, await t.as(TEST_CHECKER));
    expect(pending.body.map((c: { id: string }) => c.id)).toContain(submitted.body.id);
  });

  it('reads are for makers, approvers and compliance only (SUPPORT: 403); the suspense account cannot be corrected (400)', async () => {
    const account = await fundedAccount(t.h, 0);
    const submitted = await submit(account, 100);
    for (const path of [`/v1/internal/corrections/${submitted.body.id}`, '/v1/internal/corrections?limit=5']) {
      const bySupport = await t.h.call('GET', path, undefined, await t.as(SUPPORT));
      expect([bySupport.status, bySupport.body.code]).toEqual([403, 'OPERATOR_ROLE_REQUIRED']);
    }
    const suspense = (await t.h.admin.query(`SELECT id FROM ledger.accounts WHERE account_type = 'suspense' AND currency = 'XAF'`)).rows[0]
      .id;
    const onSuspense = await submit(suspense, 100);
    expect([onSuspense.status, onSuspense.body.code]).toEqual([400, 'ACCOUNT_NOT_ALLOWED']);
  });

  it('an ACCOUNT correction names its kind and, once executed, the reference of its adjustment', async () => {
    const account = await fundedAccount(t.h, 0);
    const submitted = await submit(account, 900);
    expect(submitted.body).toMatchObject({ kind: 'ACCOUNT', reversalOf: null, referenceId: null });
    const approved = await approve(submitted.body.id, TEST_CHECKER);
    const tx = await t.h.admin.query(`SELECT reference_id FROM ledger.transactions WHERE id = $1`, [approved.body.transactionId]);
    expect(approved.body).toMatchObject({ kind: 'ACCOUNT', reversalOf: null, referenceId: tx.rows[0].reference_id });
    expect(alerts.find((a) => a.correctionId === submitted.body.id)).toMatchObject({
      correctionKind: 'ACCOUNT',
      accountId: account,
      direction: 'CREDIT',
      reversalOf: null,
      referenceId: tx.rows[0].reference_id,
    });
  });

  it('above the compliance limit only a compliance officer may approve', async () => {
    const account = await fundedAccount(t.h, 0);
    const submitted = await submit(account, COMPLIANCE_LIMIT + 1);
    expect(submitted.body.requiresCompliance).toBe(true);
    const byAdmin = await approve(submitted.body.id, ADMIN_2);
    expect([byAdmin.status, byAdmin.body.code]).toEqual([403, 'CORRECTION_COMPLIANCE_REQUIRED']);
    expect((await balanceOf(t.h, account)).balance).toBe(0);
    const byCompliance = await approve(submitted.body.id, TEST_CHECKER);
    expect(byCompliance.body.status).toBe('EXECUTED');
    expect((await balanceOf(t.h, account)).balance).toBe(COMPLIANCE_LIMIT + 1);
    expect((await submit(account, COMPLIANCE_LIMIT)).body.requiresCompliance).toBe(false);
  });

  it('a debit cannot take more than the available balance (422, still pending); a rejection says why and moves nothing', async () => {
    const account = await fundedAccount(t.h, 0);
    await correctBalance(t.h.call, t.operators, account, 1_000);
    const tooMuch = await submit(account, 1_001, 'DEBIT');
    const refused = await approve(tooMuch.body.id, TEST_CHECKER);
    expect([refused.status, refused.body.code]).toEqual([422, 'INSUFFICIENT_BALANCE']);
    expect((await t.h.call('GET', `/v1/internal/corrections/${tooMuch.body.id}`, undefined, await t.as(TEST_CHECKER))).body.status).toBe(
      'PENDING_APPROVAL',
    );
    const noReason = await t.h.call('POST', `/v1/internal/corrections/${tooMuch.body.id}/reject`, {}, await t.as(TEST_CHECKER));
    expect(noReason.body.code).toBe('VALIDATION_ERROR');
    const rejected = await t.h.call(
      'POST',
      `/v1/internal/corrections/${tooMuch.body.id}/reject`,
      { reason: 'amount exceeds the disputed credit' },
      await t.as(TEST_CHECKER),
    );
    expect(rejected.body).toMatchObject({
      status: 'REJECTED',
      checker: { id: TEST_CHECKER.id, reason: 'amount exceeds the disputed credit' },
    });
    expect(rejected.body.events.map((e: { event: string }) => e.event)).toEqual(['submitted', 'rejected']);
    expect((await approve(tooMuch.body.id, ADMIN_2)).body.code).toBe('CORRECTION_ALREADY_DECIDED');
    const debit = await correctBalance(t.h.call, t.operators, account, 400, 'DEBIT');
    expect(debit.status).toBe('EXECUTED');
    expect((await balanceOf(t.h, account)).balance).toBe(600);
  });

  it('two checkers approving at once: exactly one executes', async () => {
    const account = await fundedAccount(t.h, 0);
    const submitted = await submit(account, 700);
    const results = await Promise.all([approve(submitted.body.id, TEST_CHECKER), approve(submitted.body.id, ADMIN_2)]);
    expect(results.map((r) => r.status).sort()).toEqual([200, 409]);
    expect((await balanceOf(t.h, account)).balance).toBe(700);
    const txs = await t.h.admin.query(`SELECT count(*)::int AS n FROM ledger.transactions WHERE metadata->>'correctionId' = $1`, [
      submitted.body.id,
    ]);
    expect(txs.rows[0].n).toBe(1);
  });

  it('the same idempotency key and body return the same request; another body under that key is refused', async () => {
    const account = await fundedAccount(t.h, 0);
    const body = { idempotencyKey: randomUUID(), accountId: account, direction: 'CREDIT', amount: 300, reason: 'duplicate cash-in fix' };
    const first = await t.h.call('POST', '/v1/internal/corrections', body, await t.as(TEST_MAKER));
    const second = await t.h.call('POST', '/v1/internal/corrections', body, await t.as(TEST_MAKER));
    expect([first.status, second.status]).toEqual([201, 200]);
    expect(second.body.id).toBe(first.body.id);
    const other = await t.h.call('POST', '/v1/internal/corrections', { ...body, amount: 301 }, await t.as(TEST_MAKER));
    expect([other.status, other.body.code]).toEqual([422, 'IDEMPOTENCY_KEY_CONFLICT']);
  });

  it.each<[string, () => Promise<Record<string, string>>, number, string]>([
    ['no token', async () => ({}), 401, 'OPERATOR_TOKEN_REQUIRED'],
    ['a name instead of a token', async () => ({ authorization: 'operator-maker' }), 401, 'OPERATOR_TOKEN_REQUIRED'],
    [
      'a token signed by another key',
      async () => bearer(await t.operators.token(TEST_MAKER, { key: await strangerKey() })),
      401,
      'TOKEN_INVALID',
    ],
    ['an expired token', async () => bearer(await t.operators.token(TEST_MAKER, { expiresInSec: -60 })), 401, 'TOKEN_EXPIRED'],
    [
      'a token for another audience',
      async () => bearer(await t.operators.token(TEST_MAKER, { audience: 'mm-ledger' })),
      401,
      'TOKEN_INVALID',
    ],
    ['a refresh-type token', async () => bearer(await t.operators.token(TEST_MAKER, { typ: 'refresh+jwt' })), 401, 'TOKEN_INVALID'],
  ])('refuses %s as operator identity', async (_name, headers, status, code) => {
    const account = await fundedAccount(t.h, 0);
    const res = await t.h.call(
      'POST',
      '/v1/internal/corrections',
      { idempotencyKey: randomUUID(), accountId: account, direction: 'CREDIT', amount: 1, reason: 'identity check test' },
      await headers(),
    );
    expect([res.status, res.body.code]).toEqual([status, code]);
  });

  it('keeps the journal append-only', async () => {
    const [event] = (await t.h.admin.query(`SELECT id FROM ledger.correction_events LIMIT 1`)).rows;
    await expect(t.h.admin.query(`UPDATE ledger.correction_events SET reason = 'x' WHERE id = $1`, [event.id])).rejects.toThrow(
      `ledger.correction_events is append-only: UPDATE operation forbidden on id ${event.id}`,
    );
    await expect(t.h.admin.query(`DELETE FROM ledger.corrections`)).rejects.toThrow(/DELETE operation forbidden/);
  });

  it('answers exactly what its OpenAPI document says: every success body of every correction route', async () => {
    const doc = await openApiOf(t.h.app.app);
    const account = await fundedAccount(t.h, 0);
    const body = { idempotencyKey: randomUUID(), accountId: account, direction: 'CREDIT', amount: 800, reason: 'documented shape check' };
    const maker = await t.as(TEST_MAKER);
    const checker = await t.as(TEST_CHECKER);
    const answers: Array<[string, string, { status: number; body: unknown }]> = [];
    const call = async (method: string, path: string, documented: string, payload?: unknown, headers = checker) => {
      const res = await t.h.call(method, path, payload, headers);
      answers.push([method, documented, res]);
      return res;
    };
    const submitted = await call('POST', '/v1/internal/corrections', '/v1/internal/corrections', body, maker);
    await call('POST', '/v1/internal/corrections', '/v1/internal/corrections', body, maker); // replayed: 200
    const toReject = await call(
      'POST',
      '/v1/internal/corrections',
      '/v1/internal/corrections',
      { ...body, idempotencyKey: randomUUID() },
      maker,
    );
    await call('GET', '/v1/internal/corrections?limit=3', '/v1/internal/corrections');
    await call('GET', `/v1/internal/corrections/${submitted.body.id}`, '/v1/internal/corrections/{id}');
    await call('POST', `/v1/internal/corrections/${submitted.body.id}/approve`, '/v1/internal/corrections/{id}/approve', {
      reason: 'checked',
    });
    await call('POST', `/v1/internal/corrections/${toReject.body.id}/reject`, '/v1/internal/corrections/{id}/reject', {
      reason: 'a duplicate of the other request',
    });
    await call('GET', '/v1/internal/corrections?status=EXECUTED&limit=3', '/v1/internal/corrections');
    // Each status the routes document was really answered, with fields (nullable ones filled in too).
    expect(answers.map(([method, path, res]) => `${method} ${path} ${res.status}`)).toEqual([
      'POST /v1/internal/corrections 201',
      'POST /v1/internal/corrections 200',
      'POST /v1/internal/corrections 201',
      'GET /v1/internal/corrections 200',
      'GET /v1/internal/corrections/{id} 200',
      'POST /v1/internal/corrections/{id}/approve 200',
      'POST /v1/internal/corrections/{id}/reject 200',
      'GET /v1/internal/corrections 200',
    ]);
    expect(answers[5][2].body).toMatchObject({ checker: { id: TEST_CHECKER.id }, transactionId: expect.any(String) });
    expect(answers.flatMap(([method, path, res]) => undocumented(doc, method, path, res))).toEqual([]);
  });
});

async function strangerKey() {
  const { generateKeyPair } = await import('jose');
  return (await generateKeyPair('EdDSA', { crv: 'Ed25519' })).privateKey;
}

describe('ledger: add/subtract outside the test-funding flow', () => {
  // Any environment but NODE_ENV=test (production included): no test funding.
  const t = useOperatorLedger({ env: { NODE_ENV: 'development' } });

  it.each(['add', 'subtract'])('%s answers 403 CORRECTION_APPROVAL_REQUIRED, even for an operator, and moves nothing', async (op) => {
    const account = (await t.h.call('POST', '/v1/internal/wallets', { ownerType: 'USER', ownerId: randomUUID(), currencies: ['XAF'] })).body
      .accounts[0].id as string;
    for (const headers of [{}, bearer(await t.operators.token(TEST_MAKER))]) {
      const res = await t.h.call(
        'PUT',
        `/v1/accounts/${account}/balance/${op}`,
        { amount: 10, reason: 'direct change', createdBy: 'ops-1' },
        headers,
      );
      expect(res.status).toBe(403);
      expect(res.body.code).toBe('CORRECTION_APPROVAL_REQUIRED');
      expect(res.body.message).toMatch(/POST \/v1\/internal\/corrections/);
    }
    expect((await balanceOf(t.h, account)).balance).toBe(0);
    // The lawful way still works.
    const funded = await correctBalance(t.h.call, t.operators, account, 10);
    expect(funded.status).toBe('EXECUTED');
  });
});

import { randomUUID } from 'node:crypto';
import { TEST_CHECKER, TEST_MAKER, type TestOperator, correctBalance } from '../../../test/support/funding';
import { openApiOf, undocumented } from '../../../test/support/openapi-departures';
import { balanceOf, contextFor, fundedAccount, intentBody, invariants, transfer } from './ledger-harness';
import { ADMIN_2, SUPPORT, recordAlerts, useOperatorLedger } from './operators';

/**
 * Reversing a whole ledger transaction under maker-checker (a correction of kind REVERSAL): one
 * request, one approval by another operator, one transaction holding the inverse of every entry of
 * the original, linked to it, at most once. Before it, a payment was undone by one correction per
 * account against suspense, approved or refused independently: half of it could go through.
 */
describe('ledger: reversing a transaction under maker-checker', () => {
  const alerts: Record<string, unknown>[] = [];
  const t = useOperatorLedger({ onAlert: recordAlerts(alerts) });

  const reverse = async (target: { transactionId?: string; referenceId?: string }, maker = TEST_MAKER, idempotencyKey = randomUUID()) =>
    t.h.call(
      'POST',
      '/v1/internal/corrections',
      { idempotencyKey, kind: 'REVERSAL', ...target, reason: 'payment anomaly: order expired, goods not handed over' },
      await t.as(maker),
    );
  const approve = async (id: string, checker: TestOperator) =>
    t.h.call('POST', `/v1/internal/corrections/${id}/approve`, { reason: 'checked with the merchant' }, await t.as(checker));
  const read = async (id: string) => t.h.call('GET', `/v1/internal/corrections/${id}`, undefined, await t.as(TEST_CHECKER));
  const technical = async (type: string): Promise<string> =>
    (await t.h.admin.query(`SELECT id FROM ledger.accounts WHERE account_type = $1 AND currency = 'XAF'`, [type])).rows[0].id;
  const balances = async (ids: string[]) => Promise.all(ids.map(async (id) => (await balanceOf(t.h, id)).balance));
  const reversalsOf = async (transactionId: string) =>
    (await t.h.admin.query(`SELECT id, reference_id, metadata FROM ledger.transactions WHERE reversal_of = $1`, [transactionId])).rows;

  /** A payer with `funds`, a merchant, and a payment payer → merchant of `amount` with `fee`. */
  async function merchantPayment(funds: number, amount: number, fee: number) {
    const payer = await fundedAccount(t.h, funds);
    const merchant = await fundedAccount(t.h, 0, 'XAF', 'MERCHANT');
    const paid = await transfer(t.h, payer, merchant, amount, fee);
    expect(paid.status).toBe(200);
    return { payer, merchant, transactionId: paid.body.transactionId as string, referenceId: paid.body.referenceId as string };
  }

  it('reverses a payment with a fee in one linked transaction: every account back, invariants kept, compliance told', async () => {
    const fees = await technical('fee_collection');
    const suspense = await technical('suspense');
    const payer = await fundedAccount(t.h, 10_000);
    const merchant = await fundedAccount(t.h, 0, 'XAF', 'MERCHANT');
    const before = await balances([payer, merchant, fees, suspense]);
    const paid = await transfer(t.h, payer, merchant, 5_000, 150);
    expect(paid.status).toBe(200);
    const { transactionId, referenceId } = paid.body as { transactionId: string; referenceId: string };
    expect(await balances([payer, merchant])).toEqual([before[0] - 5_150, before[1] + 5_000]);

    const submitted = await reverse({ referenceId });
    expect(submitted.status).toBe(201);
    expect(submitted.body).toMatchObject({
      kind: 'REVERSAL',
      status: 'PENDING_APPROVAL',
      accountId: null,
      direction: null,
      reversalOf: { transactionId, referenceId },
      amount: 5_000,
      currency: 'XAF',
      requiresCompliance: false,
      transactionId: null,
      referenceId: null,
    });
    // Nothing moves on submission.
    expect(await balances([payer, merchant])).toEqual([before[0] - 5_150, before[1] + 5_000]);

    const approved = await approve(submitted.body.id, TEST_CHECKER);
    expect(approved.status).toBe(200);
    expect(approved.body).toMatchObject({ status: 'EXECUTED', checker: { id: TEST_CHECKER.id, reason: 'checked with the merchant' } });
    expect(approved.body.referenceId).toMatch(/^MMPTX\d{6}[A-Z0-9]{7}$/);
    expect(approved.body.events.map((e: { event: string; actorId: string }) => [e.event, e.actorId])).toEqual([
      ['submitted', TEST_MAKER.id],
      ['approved', TEST_CHECKER.id],
      ['executed', TEST_CHECKER.id],
      ['alert_sent', 'system:compliance-alert'],
    ]);
    expect(approved.body.events[0].reason).toBe('payment anomaly: order expired, goods not handed over');

    // Payer, merchant and fee account as before the payment; suspense never touched.
    expect(await balances([payer, merchant, fees, suspense])).toEqual(before);
    const reversals = await reversalsOf(transactionId);
    expect(reversals).toHaveLength(1);
    expect(reversals[0].id).toBe(approved.body.transactionId);
    expect(reversals[0].metadata).toMatchObject({
      typeCode: 'REVERSAL',
      correctionId: submitted.body.id,
      reversalOf: transactionId,
      reversalOfReference: referenceId,
      makerId: TEST_MAKER.id,
      checkerId: TEST_CHECKER.id,
    });
    // Entry for entry the inverse of the original, paired like the original.
    const entriesOf = async (tx: string) =>
      (
        await t.h.admin.query(
          `SELECT id, account_id, kind, amount::int, counterparty_ledger_id FROM ledger.ledgers WHERE transaction_id = $1`,
          [tx],
        )
      ).rows;
    const original = await entriesOf(transactionId);
    const inverse = await entriesOf(approved.body.transactionId);
    const flip = (k: string) => (k === 'DEBIT' ? 'CREDIT' : 'DEBIT');
    const shape = (rows: typeof original, f = (k: string) => k) => rows.map((r) => `${r.account_id} ${f(r.kind)} ${r.amount}`).sort();
    expect(original).toHaveLength(4);
    expect(shape(inverse)).toEqual(shape(original, flip));
    for (const e of inverse) {
      const other = inverse.find((x) => x.id === e.counterparty_ledger_id)!;
      expect([other.counterparty_ledger_id, other.amount, other.kind]).toEqual([e.id, e.amount, flip(e.kind)]);
    }
    const report = await invariants(t.h.admin);
    expect([report.ledgerGaps, report.splitGaps, report.unbalancedTransactions, report.intentMismatches]).toEqual([0, 0, 0, 0]);

    expect(alerts.find((a) => a.correctionId === submitted.body.id)).toMatchObject({
      kind: 'correction.executed',
      correctionKind: 'REVERSAL',
      reversalOf: { transactionId, referenceId },
      accountId: null,
      amount: 5_000,
      makerId: TEST_MAKER.id,
      checkerId: TEST_CHECKER.id,
      transactionId: approved.body.transactionId,
      referenceId: approved.body.referenceId,
    });
  });

  it('reverses a cash-out with fee and agent commission: all six entries, treasury and the commission account included', async () => {
    const customer = await fundedAccount(t.h, 8_000);
    const agentWallet = await t.h.call('POST', '/v1/internal/wallets', { ownerType: 'AGENT', ownerId: randomUUID(), currencies: ['XAF'] });
    const accountOf = (type: string) => agentWallet.body.accounts.find((x: { accountType: string }) => x.accountType === type).id as string;
    const [agent, commission] = [accountOf('agent'), accountOf('agent_commission')];
    const all = [customer, agent, commission, await technical('fee_collection'), await technical('treasury')];
    const before = await balances(all);
    const created = await t.h.call('POST', '/v1/internal/intents', intentBody(customer, agent, 3_000, { type: 'CASH_OUT', fee: 100 }));
    const id = created.body.intentId;
    await t.h.call('POST', `/v1/internal/intents/${id}/transition`, { toStatus: 'PIN_VERIFIED', actor: { id: 'user-1' } });
    const done = await t.h.call('POST', `/v1/internal/intents/${id}/transition`, {
      toStatus: 'SUCCEEDED',
      actor: { id: 'user-1' },
      executionContext: contextFor(customer, agent, 3_000, { fee: { amount: 100 }, commission: { amount: 40, accountId: commission } }),
    });
    expect(done.status).toBe(200);
    expect(await balances(all)).not.toEqual(before);

    const submitted = await reverse({ transactionId: done.body.transactionId });
    const approved = await approve(submitted.body.id, TEST_CHECKER);
    expect(approved.body.status).toBe('EXECUTED');
    expect(await balances(all)).toEqual(before);
    const count = await t.h.admin.query(`SELECT count(*)::int AS n FROM ledger.ledgers WHERE transaction_id = $1`, [
      approved.body.transactionId,
    ]);
    expect(count.rows[0].n).toBe(6);
    expect((await invariants(t.h.admin)).ledgerGaps).toBe(0);
  });

  it('reverses a transaction at most once, never reverses a reversal, and the database keeps both rules', async () => {
    const { transactionId, referenceId } = await merchantPayment(6_000, 2_000, 0);
    const key = randomUUID();
    const first = await reverse({ transactionId }, TEST_MAKER, key);
    // A second request while the first is pending, by another maker: refused.
    const pendingTwice = await reverse({ referenceId }, ADMIN_2);
    expect([pendingTwice.status, pendingTwice.body.code]).toEqual([409, 'REVERSAL_ALREADY_REQUESTED']);
    expect((await approve(first.body.id, TEST_CHECKER)).body.status).toBe('EXECUTED');
    // The maker's own retry (same key, same body) is the same request, not a new one.
    const replay = await reverse({ transactionId }, TEST_MAKER, key);
    expect([replay.status, replay.body.id, replay.headers.get('idempotent-replayed')]).toEqual([200, first.body.id, 'true']);
    const twice = await reverse({ transactionId });
    expect([twice.status, twice.body.code]).toEqual([409, 'TRANSACTION_ALREADY_REVERSED']);
    expect(await reversalsOf(transactionId)).toHaveLength(1);

    const reversal = (await read(first.body.id)).body as { transactionId: string; referenceId: string };
    for (const target of [{ transactionId: reversal.transactionId }, { referenceId: reversal.referenceId }]) {
      const again = await reverse(target);
      expect([again.status, again.body.code]).toEqual([422, 'REVERSAL_OF_REVERSAL']);
    }

    // Raw SQL cannot add a second reversal of T, nor a reversal of the reversal.
    const rawReversal = (of: string) =>
      t.h.admin
        .query(
          `INSERT INTO ledger.transactions (reference_id, type, amount, currency, created_by, initiated_at, reversal_of)
           VALUES ('MMPTX261126RAWTEST', 'ADJUSTMENT', 1, 'XAF', 'raw', now(), $1)`,
          [of],
        )
        .catch((e: unknown) => e);
    expect(await rawReversal(transactionId)).toMatchObject({ code: '23505', constraint: 'UQ_transactions_reversal_of' });
    expect(await rawReversal(reversal.transactionId)).toMatchObject({ code: '23514', constraint: 'CHK_transactions_reversal_target' });
    // Nor a second live request for T.
    const rawRequest = await t.h.admin
      .query(
        `INSERT INTO ledger.corrections (idempotency_key, request_hash, kind, reversed_transaction_id, amount, currency, reason, status,
                                         requires_compliance, maker_id, maker_roles)
         VALUES ($1, repeat('0', 64), 'REVERSAL', $2, 2000, 'XAF', 'raw duplicate', 'PENDING_APPROVAL', false, 'raw', '{}')`,
        [randomUUID(), transactionId],
      )
      .catch((e: unknown) => e);
    expect(rawRequest).toMatchObject({ code: '23505', constraint: 'UQ_corrections_live_reversal' });
  });

  it('a rejected reversal frees its transaction for a new request', async () => {
    const { transactionId } = await merchantPayment(3_000, 1_000, 0);
    const first = await reverse({ transactionId });
    const rejected = await t.h.call(
      'POST',
      `/v1/internal/corrections/${first.body.id}/reject`,
      { reason: 'the merchant handed the goods over' },
      await t.as(TEST_CHECKER),
    );
    expect(rejected.body.status).toBe('REJECTED');
    const second = await reverse({ transactionId });
    expect(second.status).toBe(201);
    expect(second.body.id).not.toBe(first.body.id);
  });

  it('the maker cannot approve their own reversal (403 CORRECTION_SAME_USER); nothing moves', async () => {
    const { payer, merchant, transactionId } = await merchantPayment(5_000, 5_000, 0);
    const submitted = await reverse({ transactionId });
    const self = await approve(submitted.body.id, TEST_MAKER);
    expect([self.status, self.body.code]).toEqual([403, 'CORRECTION_SAME_USER']);
    const bySupport = await approve(submitted.body.id, SUPPORT);
    expect([bySupport.status, bySupport.body.code]).toEqual([403, 'OPERATOR_ROLE_REQUIRED']);
    const submittedBySupport = await reverse({ transactionId }, SUPPORT);
    expect([submittedBySupport.status, submittedBySupport.body.code]).toEqual([403, 'OPERATOR_ROLE_REQUIRED']);
    expect((await read(submitted.body.id)).body.status).toBe('PENDING_APPROVAL');
    expect(await balances([payer, merchant])).toEqual([0, 5_000]);
    expect(await reversalsOf(transactionId)).toHaveLength(0);
  });

  it('when an account lacks the money: 422 INSUFFICIENT_BALANCE, nothing written, still pending, approvable once funded', async () => {
    const { payer, merchant, transactionId } = await merchantPayment(5_000, 5_000, 0);
    // The merchant spends part of it before the reversal is approved.
    const elsewhere = await fundedAccount(t.h, 0);
    expect((await transfer(t.h, merchant, elsewhere, 3_000)).status).toBe(200);
    const submitted = await reverse({ transactionId });

    const refused = await approve(submitted.body.id, TEST_CHECKER);
    expect([refused.status, refused.body.code]).toEqual([422, 'INSUFFICIENT_BALANCE']);
    expect(refused.body.message).toContain(merchant);
    expect(refused.body.message).toContain('available 2000, required 5000');
    expect(await balances([payer, merchant])).toEqual([0, 2_000]);
    expect(await reversalsOf(transactionId)).toHaveLength(0);
    const pending = (await read(submitted.body.id)).body;
    expect(pending).toMatchObject({ status: 'PENDING_APPROVAL', checker: null, transactionId: null });
    expect(pending.events.map((e: { event: string }) => e.event)).toEqual(['submitted']);

    await correctBalance(t.h.call, t.operators, merchant, 3_000);
    const approved = await approve(submitted.body.id, ADMIN_2);
    expect(approved.body.status).toBe('EXECUTED');
    expect(await balances([payer, merchant])).toEqual([5_000, 0]);
    expect(await reversalsOf(transactionId)).toHaveLength(1);
    expect((await invariants(t.h.admin)).ledgerGaps).toBe(0);
  });

  it('two checkers approving at once: exactly one reversal executes', async () => {
    const { payer, merchant, transactionId } = await merchantPayment(4_000, 4_000, 0);
    const submitted = await reverse({ transactionId });
    const results = await Promise.all([approve(submitted.body.id, TEST_CHECKER), approve(submitted.body.id, ADMIN_2)]);
    expect(results.map((r) => r.status).sort()).toEqual([200, 409]);
    expect(results.find((r) => r.status === 409)!.body.code).toBe('CORRECTION_ALREADY_DECIDED');
    expect(await balances([payer, merchant])).toEqual([4_000, 0]);
    expect(await reversalsOf(transactionId)).toHaveLength(1);
  });

  it('above the compliance limit (the amount of the transaction) only a compliance officer approves', async () => {
    const { payer, transactionId } = await merchantPayment(1_200_000, 1_100_000, 0);
    const submitted = await reverse({ transactionId });
    expect(submitted.body).toMatchObject({ requiresCompliance: true, amount: 1_100_000 });
    const byAdmin = await approve(submitted.body.id, ADMIN_2);
    expect([byAdmin.status, byAdmin.body.code]).toEqual([403, 'CORRECTION_COMPLIANCE_REQUIRED']);
    expect((await approve(submitted.body.id, TEST_CHECKER)).body.status).toBe('EXECUTED');
    expect((await balanceOf(t.h, payer)).balance).toBe(1_200_000);
  });

  it('the compliance limit counts what one account gets back, fee included: 1 000 000 + 5 000 fee needs an officer, 995 000 + 5 000 does not', async () => {
    // Over the limit (1 000 000) only through the fee: the payer gets 1 005 000 back.
    const over = await merchantPayment(1_005_000, 1_000_000, 5_000);
    const submitted = await reverse({ transactionId: over.transactionId });
    expect(submitted.body).toMatchObject({ requiresCompliance: true, amount: 1_000_000 });
    expect((await read(submitted.body.id)).body.events[0].metadata).toMatchObject({ largestAccountMovement: 1_005_000 });
    const byAdmin = await approve(submitted.body.id, ADMIN_2);
    expect([byAdmin.status, byAdmin.body.code]).toEqual([403, 'CORRECTION_COMPLIANCE_REQUIRED']);
    expect((await read(submitted.body.id)).body.status).toBe('PENDING_APPROVAL');
    expect(await balances([over.payer, over.merchant])).toEqual([0, 1_000_000]);
    expect((await approve(submitted.body.id, TEST_CHECKER)).body.status).toBe('EXECUTED');
    expect(await balances([over.payer, over.merchant])).toEqual([1_005_000, 0]);

    // Exactly at the limit, fee included: an ADMIN checker may approve.
    const at = await merchantPayment(1_000_000, 995_000, 5_000);
    const atLimit = await reverse({ transactionId: at.transactionId });
    expect(atLimit.body).toMatchObject({ requiresCompliance: false, amount: 995_000 });
    expect((await read(atLimit.body.id)).body.events[0].metadata).toMatchObject({ largestAccountMovement: 1_000_000 });
    const approved = await approve(atLimit.body.id, ADMIN_2);
    expect([approved.status, approved.body.status]).toEqual([200, 'EXECUTED']);
    expect(await balances([at.payer, at.merchant])).toEqual([1_000_000, 0]);
  });

  it('a cash-out reversal (six entries, commission included) is counted the same way: the customer gets amount + fee back', async () => {
    const customer = await fundedAccount(t.h, 1_000_050);
    const agentWallet = await t.h.call('POST', '/v1/internal/wallets', { ownerType: 'AGENT', ownerId: randomUUID(), currencies: ['XAF'] });
    const accountOf = (type: string) => agentWallet.body.accounts.find((x: { accountType: string }) => x.accountType === type).id as string;
    const [agent, commission] = [accountOf('agent'), accountOf('agent_commission')];
    const created = await t.h.call('POST', '/v1/internal/intents', intentBody(customer, agent, 999_950, { type: 'CASH_OUT', fee: 100 }));
    const id = created.body.intentId;
    await t.h.call('POST', `/v1/internal/intents/${id}/transition`, { toStatus: 'PIN_VERIFIED', actor: { id: 'user-1' } });
    const done = await t.h.call('POST', `/v1/internal/intents/${id}/transition`, {
      toStatus: 'SUCCEEDED',
      actor: { id: 'user-1' },
      executionContext: contextFor(customer, agent, 999_950, { fee: { amount: 100 }, commission: { amount: 40, accountId: commission } }),
    });
    expect(done.status).toBe(200);
    const submitted = await reverse({ transactionId: done.body.transactionId });
    expect(submitted.body).toMatchObject({ requiresCompliance: true, amount: 999_950 });
    expect((await read(submitted.body.id)).body.events[0].metadata).toMatchObject({ largestAccountMovement: 1_000_050 });
    const byAdmin = await approve(submitted.body.id, ADMIN_2);
    expect([byAdmin.status, byAdmin.body.code]).toEqual([403, 'CORRECTION_COMPLIANCE_REQUIRED']);
    expect((await approve(submitted.body.id, TEST_CHECKER)).body.status).toBe('EXECUTED');
    expect((await balanceOf(t.h, customer)).balance).toBe(1_000_050);
  });

  it.each<[string, Record<string, unknown>, number, string]>([
    ['an account field in a REVERSAL', { kind: 'REVERSAL', transactionId: randomUUID(), amount: 10 }, 400, 'VALIDATION_ERROR'],
    [
      'both transactionId and referenceId',
      { kind: 'REVERSAL', transactionId: randomUUID(), referenceId: 'MMPTX261126AAAAAAA' },
      400,
      'VALIDATION_ERROR',
    ],
    ['a REVERSAL naming no transaction', { kind: 'REVERSAL' }, 400, 'VALIDATION_ERROR'],
    ['a malformed reference', { kind: 'REVERSAL', referenceId: 'TX-1' }, 400, 'VALIDATION_ERROR'],
    [
      'a transaction id in an ACCOUNT correction',
      { accountId: randomUUID(), direction: 'CREDIT', amount: 5, transactionId: randomUUID() },
      400,
      'VALIDATION_ERROR',
    ],
    ['an ACCOUNT correction without its account', { direction: 'CREDIT', amount: 5 }, 400, 'VALIDATION_ERROR'],
    ['an unknown transaction', { kind: 'REVERSAL', transactionId: randomUUID() }, 404, 'TRANSACTION_NOT_FOUND'],
    ['an unknown reference', { kind: 'REVERSAL', referenceId: 'MMPTX261126ZZZZZZZ' }, 404, 'TRANSACTION_NOT_FOUND'],
  ])('refuses %s', async (_name, fields, status, code) => {
    const res = await t.h.call(
      'POST',
      '/v1/internal/corrections',
      { idempotencyKey: randomUUID(), reason: 'validation of the request shape', ...fields },
      await t.as(TEST_MAKER),
    );
    expect([res.status, res.body.code]).toEqual([status, code]);
  });

  it('answers reversals exactly as its OpenAPI document says', async () => {
    const doc = await openApiOf(t.h.app.app);
    const { transactionId } = await merchantPayment(2_000, 700, 0);
    const answers: Array<[string, string, { status: number; body: unknown }]> = [];
    const submitted = await reverse({ transactionId });
    answers.push(['POST', '/v1/internal/corrections', submitted]);
    answers.push(['GET', '/v1/internal/corrections/{id}', await read(submitted.body.id)]);
    answers.push(['POST', '/v1/internal/corrections/{id}/approve', await approve(submitted.body.id, TEST_CHECKER)]);
    answers.push([
      'GET',
      '/v1/internal/corrections',
      await t.h.call('GET', '/v1/internal/corrections?limit=5', undefined, await t.as(TEST_CHECKER)),
    ]);
    answers.push(['POST', '/v1/internal/corrections', await reverse({ transactionId })]); // 409
    expect(answers.map(([, , res]) => res.status)).toEqual([201, 200, 200, 200, 409]);
    expect(answers.flatMap(([method, path, res]) => undocumented(doc, method, path, res))).toEqual([]);
    const body = doc.paths['/v1/internal/corrections'].post as unknown as {
      requestBody: { content: { 'application/json': { examples: Record<string, unknown> } } };
    };
    expect(Object.keys(body.requestBody.content['application/json'].examples)).toEqual(['account', 'reversal']);
  });
});

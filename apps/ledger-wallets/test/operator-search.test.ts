import { callerKey } from '../../../test/support/test-env';
import { fundedAccount, intentBody, transfer } from './ledger-harness';
import { reverseApproved, useOperatorLedger } from './operators';

type Op = {
  intentId: string | null;
  transactionId: string | null;
  referenceId: string | null;
  type: string;
  status: string;
  amount: number;
};
type Entry = { direction: 'DEBIT' | 'CREDIT'; amount: number; accountId: string };

const SEARCH = '/v1/internal/operator-search/operations';

/**
 * The back office's operation search and payment story
 * (docs/ledger.md "Operator search: operations for the back office"): intents and adjustments found
 * by every filter, newest first, keyset pages that neither repeat nor skip, and one operation with
 * its journal and balanced entries.
 */
describe('ledger: operator search', () => {
  const t = useOperatorLedger();

  it('finds intents and adjustments by account, reference, type, status, amount and time; pages stably', async () => {
    const startedAt = new Date().toISOString();
    const payer = await fundedAccount(t.h, 50_000);
    const payee = await fundedAccount(t.h, 0);
    const small = await transfer(t.h, payer, payee, 1_000, 10);
    const large = await transfer(t.h, payer, payee, 20_000, 200);
    expect([small.status, large.status]).toEqual([200, 200]);
    const pending = await t.h.call('POST', '/v1/internal/intents', intentBody(payer, payee, 3_000));
    expect(pending.status).toBe(201);

    const byPayee = await t.h.call('GET', `${SEARCH}?accountIds=${payee}`);
    expect(byPayee.status).toBe(200);
    // the credited side is found too; newest first: the pending intent, then the two payments
    expect((byPayee.body.items as Op[]).map((o) => [o.amount, o.status])).toEqual([
      [3_000, 'CREATED'],
      [20_000, 'SUCCEEDED'],
      [1_000, 'SUCCEEDED'],
    ]);
    expect(byPayee.body.items[1]).toMatchObject({
      transactionId: large.body.transactionId,
      referenceId: large.body.referenceId,
      type: 'TRANSFER',
      fee: 200,
      sourceAccountId: payer,
      destinationAccountId: payee,
      reverses: null,
      reversedBy: null,
    });
    // the payer's account also has its funding, an ADJUSTMENT without intent
    const byPayer = await t.h.call('GET', `${SEARCH}?accountIds=${payer}`);
    expect((byPayer.body.items as Op[]).map((o) => o.type)).toEqual(['TRANSFER', 'TRANSFER', 'TRANSFER', 'ADJUSTMENT']);
    expect(byPayer.body.items[3]).toMatchObject({ intentId: null, status: 'SUCCEEDED', amount: 50_000 });

    const byReference = await t.h.call('GET', `${SEARCH}?reference=${small.body.referenceId}`);
    expect((byReference.body.items as Op[]).map((o) => o.transactionId)).toEqual([small.body.transactionId]);
    const adjustments = await t.h.call('GET', `${SEARCH}?accountIds=${payer}&type=ADJUSTMENT`);
    expect((adjustments.body.items as Op[]).map((o) => o.amount)).toEqual([50_000]);
    const created = await t.h.call('GET', `${SEARCH}?accountIds=${payer}&status=CREATED`);
    expect((created.body.items as Op[]).map((o) => o.intentId)).toEqual([pending.body.intentId]);
    const midRange = await t.h.call('GET', `${SEARCH}?accountIds=${payer}&minAmount=1000&maxAmount=20000`);
    expect((midRange.body.items as Op[]).map((o) => o.amount)).toEqual([3_000, 20_000, 1_000]);
    const future = await t.h.call('GET', `${SEARCH}?accountIds=${payer}&from=${new Date(Date.now() + 60_000).toISOString()}`);
    expect(future.body.items).toEqual([]);
    const since = await t.h.call(
      'GET',
      `${SEARCH}?accountIds=${payer}&from=${startedAt}&to=${new Date(Date.now() + 60_000).toISOString()}`,
    );
    expect(since.body.items).toHaveLength(4);

    // one row a page: the walk gives the whole list, in order, then a null cursor
    const walked: Op[] = [];
    let cursor: string | null = null;
    do {
      const page: { status: number; body: { items: Op[]; nextCursor: string | null } } = await t.h.call(
        'GET',
        `${SEARCH}?accountIds=${payer}&limit=1${cursor ? `&cursor=${cursor}` : ''}`,
      );
      expect(page.status).toBe(200);
      walked.push(...page.body.items);
      cursor = page.body.nextCursor;
    } while (cursor);
    expect(walked).toEqual(byPayer.body.items);
  });

  it('tells the story of a payment: its journal, its balanced entries and its reversal', async () => {
    const payer = await fundedAccount(t.h, 30_000);
    const payee = await fundedAccount(t.h, 0);
    const paid = await transfer(t.h, payer, payee, 10_000, 100);
    expect(paid.status).toBe(200);
    const reversal = await reverseApproved(t, paid.body.referenceId);

    const story = await t.h.call('GET', `${SEARCH}/${paid.body.referenceId}`);
    expect(story.status).toBe(200);
    expect(story.body.operation).toMatchObject({
      referenceId: paid.body.referenceId,
      status: 'SUCCEEDED',
      reversedBy: { referenceId: reversal.referenceId },
    });
    expect((story.body.events as { toStatus: string }[]).map((e) => e.toStatus)).toEqual(['CREATED', 'PIN_VERIFIED', 'SUCCEEDED']);
    const entries = story.body.entries as Entry[];
    const sum = (d: string) => entries.filter((e) => e.direction === d).reduce((s, e) => s + e.amount, 0);
    // the payment (10 000 and its fee) and its reversal, each balanced
    expect(sum('DEBIT')).toBe(sum('CREDIT'));
    expect(sum('DEBIT')).toBe(2 * 10_100);
    expect(entries.filter((e) => e.accountId === payer).map((e) => [e.direction, e.amount])).toEqual(
      expect.arrayContaining([
        ['DEBIT', 10_000],
        ['DEBIT', 100],
      ]),
    );
    // by intent id, the same operation; the reversal's own story points back
    const byIntent = await t.h.call('GET', `${SEARCH}/${story.body.operation.intentId}`);
    expect(byIntent.body.operation.transactionId).toBe(paid.body.transactionId);
    const back = await t.h.call('GET', `${SEARCH}/${reversal.referenceId}`);
    expect(back.body.operation).toMatchObject({ type: 'ADJUSTMENT', reverses: { referenceId: paid.body.referenceId } });
    expect(back.body.reason).toBe('paid the wrong person');
  });

  it('refuses a forged cursor, unknown filters values and other callers; an unknown key is TRANSACTION_NOT_FOUND', async () => {
    const bad = await t.h.call('GET', `${SEARCH}?cursor=${Buffer.from('["yesterday","x"]').toString('base64url')}`);
    expect(bad.status).toBe(400);
    expect(bad.body.errors).toEqual([expect.objectContaining({ field: 'cursor', code: 'INVALID_CURSOR' })]);
    const type = await t.h.call('GET', `${SEARCH}?type=REFUND&minAmount=0`);
    expect(type.status).toBe(400);
    expect((type.body.errors as { field: string }[]).map((e) => e.field).sort()).toEqual(['minAmount', 'type']);
    expect((await t.h.call('GET', `${SEARCH}/MMPTX2611220A1B2C3`)).body.code).toBe('TRANSACTION_NOT_FOUND');
    const ops = await fetch(`${t.h.app.url}${SEARCH}`, { headers: { 'x-service-key': callerKey('ops') } });
    expect(ops.status).toBe(403);
  });
});

import { randomUUID } from 'node:crypto';
import { openApiOf, undocumented } from '../../../test/support/openapi-departures';
import { balanceOf, fundedAccount, transfer } from './ledger-harness';
import { reverseApproved, useOperatorLedger } from './operators';

/**
 * The ledger's statement reads behind a holder's history
 * (docs/ledger.md "Statements: what moved a holder's accounts besides payments"): the adjustments
 * of some accounts, with their net change on them, and which transactions were reversed.
 */
describe('ledger: adjustments and reversals of an account, for its history', () => {
  const t = useOperatorLedger();

  it('lists the funding and the reversal of a payment with their change on the account, pages without repeats, and links the reversal', async () => {
    const doc = await openApiOf(t.h.app.app);
    const payer = await fundedAccount(t.h, 20_000);
    const payee = await fundedAccount(t.h, 0);
    const paid = await transfer(t.h, payer, payee, 10_000, 100);
    const kept = await transfer(t.h, payer, payee, 1_000, 50);
    expect([paid.status, kept.status]).toEqual([200, 200]);
    const approved = { body: await reverseApproved(t, paid.body.referenceId) };

    const all = await t.h.call('GET', `/v1/internal/adjustments?accountIds=${payer}`);
    expect(all.status).toBe(200);
    expect(all.body).toEqual([
      expect.objectContaining({
        kind: 'REVERSAL',
        referenceId: approved.body.referenceId,
        reversalOf: { transactionId: paid.body.transactionId, referenceId: paid.body.referenceId },
        amount: 10_000,
        fee: 100,
        change: 10_100,
        reason: 'paid the wrong person',
        currency: 'XAF',
      }),
      expect.objectContaining({ kind: 'CORRECTION', reversalOf: null, change: 20_000 }),
    ]);
    // the adjustments' changes and the two payments (−10 100, −1 050) make up the balance
    const changes = (all.body as { change: number }[]).reduce((sum, x) => sum + x.change, 0);
    expect(changes - 10_100 - 1_050).toBe((await balanceOf(t.h, payer)).balance);
    const forPayee = await t.h.call(
      'GET',
      `/v1/internal/adjustments?accountIds=${payee},${payer}&referenceId=${approved.body.referenceId}`,
    );
    // both accounts asked about: the reversal's net on them together (the fee went to fee collection)
    expect(forPayee.body).toEqual([expect.objectContaining({ kind: 'REVERSAL', change: 100 })]);

    // keyset: one at a time, each page strictly after the previous one
    const first = await t.h.call('GET', `/v1/internal/adjustments?accountIds=${payer}&limit=1`);
    const [a] = first.body as { completedAt: string; transactionId: string }[];
    const second = await t.h.call(
      'GET',
      `/v1/internal/adjustments?accountIds=${payer}&limit=1&before=${a.completedAt}&beforeId=${a.transactionId}`,
    );
    const third = await t.h.call(
      'GET',
      `/v1/internal/adjustments?accountIds=${payer}&limit=1&before=${second.body[0].completedAt}&beforeId=${second.body[0].transactionId}`,
    );
    expect([...first.body, ...second.body, ...third.body].map((x: { transactionId: string }) => x.transactionId)).toEqual(
      all.body.map((x: { transactionId: string }) => x.transactionId),
    );

    const links = await t.h.call('GET', `/v1/internal/reversals?transactionIds=${paid.body.transactionId},${kept.body.transactionId}`);
    expect(links.body).toEqual([
      {
        reversalOf: paid.body.transactionId,
        transactionId: approved.body.transactionId,
        referenceId: approved.body.referenceId,
        completedAt: expect.any(String),
      },
    ]);
    expect([
      ...undocumented(doc, 'GET', '/v1/internal/adjustments', all),
      ...undocumented(doc, 'GET', '/v1/internal/reversals', links),
    ]).toEqual([]);
  });

  it.each([
    ['no accounts', '/v1/internal/adjustments'],
    ['an account id that is not a UUID', '/v1/internal/adjustments?accountIds=nope'],
    ['eleven accounts', `/v1/internal/adjustments?accountIds=${Array.from({ length: 11 }, () => randomUUID()).join(',')}`],
    ['a limit above 101', `/v1/internal/adjustments?accountIds=${randomUUID()}&limit=102`],
    ['a transaction id that is not a UUID', '/v1/internal/reversals?transactionIds=1,2'],
  ])('refuses %s with 400 VALIDATION_ERROR', async (_name, path) => {
    const res = await t.h.call('GET', path);
    expect([res.status, res.body.code]).toEqual([400, 'VALIDATION_ERROR']);
  });
});

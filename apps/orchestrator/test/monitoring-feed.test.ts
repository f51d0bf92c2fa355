import { MoneyPlatform, type TestUser, payOk } from '../../../test/e2e/money-platform';

/**
 * A real payment reaches monitoring: the ledger commits it with its outbox row, the relay publishes
 * the batch to `monitoring-events` beside `ledger-events`, and the orchestrator's worker stores the
 * operation with the persons on each side resolved from its own identities.
 */
describe('monitoring feed from the ledger outbox', () => {
  const p = new MoneyPlatform();
  let agent: TestUser;
  let customer: TestUser;

  beforeAll(async () => {
    await p.start({ ledgerEnv: { LEDGER_OUTBOX_POLL_MS: '50' } });
    [agent, customer] = await Promise.all([p.register('AGENT'), p.register('CUSTOMER')]);
    await p.fund(agent.accounts.XAF, 500_000);
  }, 60_000);
  afterAll(() => p.stop());

  it('a cash-in confirmed through the gateway is stored once by the monitoring feed, with its agent and customer', async () => {
    const confirmed = await payOk(p, agent, { type: 'CASH_IN', amount: 40_000, clientPhone: customer.phone, clientCountryCode: '+237' });
    const transactionId = confirmed.body.transactionId as string;

    const deadline = Date.now() + 10_000;
    let rows: Array<Record<string, unknown>> = [];
    while (Date.now() < deadline) {
      rows = (await p.sql.query(`SELECT * FROM orchestrator.monitored_operations WHERE transaction_id = $1`, [transactionId])).rows;
      if (rows.length > 0) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(rows).toEqual([
      expect.objectContaining({
        reference: confirmed.body.referenceId,
        intent_type: 'CASH_IN',
        amount: '40000',
        currency: 'XAF',
        source_account_id: agent.accounts.XAF,
        source_user_id: agent.userId,
        source_kind: 'AGENT',
        destination_account_id: customer.accounts.XAF,
        destination_user_id: customer.userId,
        destination_kind: 'CUSTOMER',
      }),
    ]);
    const outbox = await p.sql.query(`SELECT id, published_at FROM ledger.outbox WHERE aggregate_id = $1`, [transactionId]);
    expect(outbox.rows[0].published_at).not.toBeNull();
    expect(rows[0].event_id).toBe(outbox.rows[0].id);
  });
});

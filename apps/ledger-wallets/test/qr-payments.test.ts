import { randomUUID } from 'node:crypto';
import { QR_PAYMENT_ROUTES, QR_PAYMENTS_MAX_TOKENS } from '@mm/contracts';
import { type Harness, contextFor, fundedAccount, intentBody, startLedger } from './ledger-harness';

/**
 * `POST /v1/internal/qr-payments`: which QR tokens an intent paid, and which an intent may still pay,
 * what partners asks (through the orchestrator) before it expires an order, see
 * docs/partners.md "Expiry and replicas".
 */
describe('ledger: what was paid with QR tokens', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startLedger();
  });
  afterAll(() => h?.close());

  const ask = (qrTokens: unknown) => h.call('POST', QR_PAYMENT_ROUTES.ledger, { qrTokens });

  it('paid (with its published event), may still pay, or neither: a canceled intent, an intent past its deadline and an unknown token are neither', async () => {
    const source = await fundedAccount(h, 10_000);
    const destination = await fundedAccount(h, 0);
    const token = () => `QR${randomUUID().replace(/-/g, '').slice(0, 16)}`;
    const [paid, open, canceled, late, unknown] = [token(), token(), token(), token(), token()];
    const create = async (qrToken: string, extra: Record<string, unknown> = {}) => {
      const res = await h.call('POST', '/v1/internal/intents', intentBody(source, destination, 100, { qrToken, ...extra }));
      expect(res.status).toBe(201);
      return res.body.intentId as string;
    };
    const move = (id: string, body: Record<string, unknown>) => h.call('POST', `/v1/internal/intents/${id}/transition`, body);

    const paying = await create(paid);
    expect((await move(paying, { toStatus: 'PIN_VERIFIED', actor: { id: 'user-1' } })).status).toBe(200);
    expect(
      (await move(paying, { toStatus: 'SUCCEEDED', actor: { id: 'user-1' }, executionContext: contextFor(source, destination, 100) }))
        .status,
    ).toBe(200);
    await create(open);
    expect((await move(await create(canceled), { toStatus: 'CANCELED', actor: { id: 'user-1' } })).status).toBe(200);
    // Not ended by the sweep yet, but past its deadline: the confirm would refuse it.
    const lateId = await create(late);
    await h.admin.query(`UPDATE ledger.transaction_intents SET expires_at = now() - interval '1 second' WHERE id = $1`, [lateId]);

    const res = await ask([paid, open, canceled, late, unknown, paid]);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      paid: [paid],
      open: [open],
      // the payment's event as the outbox published it (its eventId is the outbox row's)
      payments: [expect.objectContaining({ type: 'transaction.completed', qrToken: paid, intentId: paying, amount: 100 })],
    });
    const { rows } = await h.admin.query(`SELECT id FROM ledger.outbox WHERE payload->>'intentId' = $1`, [paying]);
    expect(res.body.payments[0].eventId).toBe(rows[0].id);
  });

  it('refuses an empty list, too many tokens or a token that is not text (400 VALIDATION_ERROR)', async () => {
    for (const bad of [['QR\u0000x'], [], Array.from({ length: QR_PAYMENTS_MAX_TOKENS + 1 }, (_, i) => `QR${i}`), [42], [''], 'QR1']) {
      const res = await ask(bad);
      expect([res.status, res.body.code]).toEqual([400, 'VALIDATION_ERROR']);
    }
  });
});

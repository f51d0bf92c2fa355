import { randomUUID } from 'node:crypto';
import { type Harness, balanceOf, fundedAccount, intentBody, startLedger } from './ledger-harness';

/**
 * The ledger's internal API refuses a missing or null required field with the field's code, before
 * anything is held: the actor of an intent (its creation and every transition read `actor.id`,
 * docs/ledger.md "Intents"), and an explicit null where a field may only be left out
 * (docs/architecture.md "Processes and ports", on validation).
 */
describe('ledger: required actor, null on optional fields', () => {
  let h: Harness;
  let source: string;
  let destination: string;

  beforeAll(async () => {
    h = await startLedger();
    source = await fundedAccount(h, 10_000);
    destination = await fundedAccount(h, 0);
  });
  afterAll(() => h?.close());

  const untouched = async () =>
    expect(await balanceOf(h, source)).toMatchObject({ balance: 10_000, availableBalance: 10_000, frozenBalance: 0 });

  it.each([
    ['without actor', { actor: undefined }, 'actor', 'REQUIRED'],
    ['with actor null', { actor: null }, 'actor', 'REQUIRED'],
    ['with an actor array', { actor: [{ id: 'user-1' }] }, 'actor', 'INVALID_OBJECT'],
    ['with an actor without id', { actor: { ip: '10.0.0.1' } }, 'actor.id', 'REQUIRED'],
    ['with actor.id null', { actor: { id: null } }, 'actor.id', 'REQUIRED'],
    ['with actor.ip null', { actor: { id: 'user-1', ip: null } }, 'actor.ip', 'INVALID_STRING'],
  ])('creating an intent %s → 400 VALIDATION_ERROR with the field code, nothing held', async (_name, patch, field, code) => {
    const body = { ...intentBody(source, destination, 1_000), ...patch };
    const res = await h.call('POST', '/v1/internal/intents', body);
    expect([res.status, res.body.code]).toEqual([400, 'VALIDATION_ERROR']);
    expect(res.body.errors).toEqual([expect.objectContaining({ field, code })]);
    await untouched();
    const { rows } = await h.admin.query(`SELECT 1 FROM ledger.transaction_intents WHERE idempotency_key = $1`, [body.idempotencyKey]);
    expect(rows).toHaveLength(0);
  });

  it.each([
    ['without actor', {}, 'actor', 'REQUIRED'],
    ['with actor null', { actor: null }, 'actor', 'REQUIRED'],
    ['with an actor without id', { actor: {} }, 'actor.id', 'REQUIRED'],
    ['with reason null', { actor: { id: 'user-1' }, reason: null }, 'reason', 'INVALID_STRING'],
  ])('transitioning an intent %s → 400 VALIDATION_ERROR with the field code, the intent unchanged', async (_name, patch, field, code) => {
    const created = await h.call('POST', '/v1/internal/intents', intentBody(source, destination, 1_000));
    expect(created.status).toBe(201);
    const id = created.body.intentId as string;
    const res = await h.call('POST', `/v1/internal/intents/${id}/transition`, { toStatus: 'CANCELED', ...patch });
    expect([res.status, res.body.code]).toEqual([400, 'VALIDATION_ERROR']);
    expect(res.body.errors).toEqual([expect.objectContaining({ field, code })]);
    expect((await h.call('GET', `/v1/internal/intents/${id}`)).body.status).toBe('CREATED');

    // With its actor, the same transition goes through and releases the hold.
    const canceled = await h.call('POST', `/v1/internal/intents/${id}/transition`, { toStatus: 'CANCELED', actor: { id: 'user-1' } });
    expect([canceled.status, canceled.body.status]).toEqual([200, 'CANCELED']);
    await untouched();
  });

  it('creating a wallet with currencies null → 400 on currencies, no wallet; left out, every currency', async () => {
    const ownerId = randomUUID();
    const res = await h.call('POST', '/v1/internal/wallets', { ownerType: 'USER', ownerId, currencies: null });
    expect([res.status, res.body.code]).toEqual([400, 'VALIDATION_ERROR']);
    expect(res.body.errors).toEqual([expect.objectContaining({ field: 'currencies', code: 'INVALID_ARRAY' })]);
    const { rows } = await h.admin.query(`SELECT 1 FROM ledger.wallets WHERE owner_id = $1`, [ownerId]);
    expect(rows).toHaveLength(0);

    const created = await h.call('POST', '/v1/internal/wallets', { ownerType: 'USER', ownerId });
    expect(created.status).toBe(201);
    expect(new Set(created.body.accounts.map((a: { currency: string }) => a.currency))).toEqual(new Set(['XAF', 'XOF']));
  });
});

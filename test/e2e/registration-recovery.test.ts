import { randomUUID } from 'node:crypto';
import { RegistrationRecovery } from '../../apps/orchestrator/src/registration/registration-recovery.service';
import { PlatformHarness } from '../../apps/orchestrator/test/platform-harness';
import { callerKey } from '../support/test-env';

const PIN = '2580';
const person = { firstName: 'Awa', lastName: 'Nkoulou', countryCode: 'CM' };

describe('registration: a run cut by a crash is finished or undone at the next start', () => {
  const h = new PlatformHarness();
  // Runs of a crashed process are taken over once quiet for this long (production: 2 minutes).
  beforeAll(() => h.start({ orchestrator: { SAGA_RECOVERY_STALE_MS: '600000', SAGA_RECOVERY_INTERVAL_MS: '0' } }));
  afterAll(() => h.stop());

  const restartAndRecover = async (): Promise<number> => {
    await h.restartOrchestrator({ SAGA_RECOVERY_STALE_MS: '0' });
    return h.orchestrator.app.get(RegistrationRecovery).startupPass();
  };
  const sagaOf = async (phone: string) =>
    (await h.sql.query(`SELECT id, status, context FROM orchestrator.sagas WHERE phone = $1`, [phone])).rows[0];

  it('cut after the local user: the user cannot sign in meanwhile; the next start finishes the run (same key answers it)', async () => {
    const phone = '+237690400001';
    const key = randomUUID();
    const cut = await h.call('POST', '/api/orchestrator/auth/register/merchant', {
      body: { phone, pin: PIN, ...person, businessName: 'Chez Awa', category: 'RETAIL' },
      headers: { 'x-saga-fault': 'crash:LOCAL_USER', 'idempotency-key': key },
    });
    expect(cut.status).toBe(503);
    expect((await sagaOf(phone)).status).toBe('running');
    // half-registered: the identity exists but is disabled, the customer does not exist for anyone
    expect((await h.call('POST', '/api/auth/login', { body: { phone, pin: PIN } })).body.code).toBe('ACCOUNT_DISABLED');
    expect((await h.internal('GET', `/api/internal/directory/merchants/by-phone?phone=${encodeURIComponent(phone)}`)).status).toBe(404);

    // A start that is not the crashed process's own: a fresh run is left alone (another instance may drive it).
    await h.restartOrchestrator();
    expect(await h.orchestrator.app.get(RegistrationRecovery).startupPass()).toBe(0);
    expect((await sagaOf(phone)).status).toBe('running');

    expect(await restartAndRecover()).toBe(1);
    const saga = await sagaOf(phone);
    expect(saga.status).toBe('succeeded');
    const token = await h.login(phone, PIN);
    const self = await h.call('GET', '/api/orchestrator/merchants/me', { token });
    expect(self.status).toBe(200);
    expect(self.body.balances).toHaveLength(2);
    const replay = await h.call('POST', '/api/orchestrator/auth/register/merchant', {
      body: { phone, pin: PIN, ...person, businessName: 'Chez Awa', category: 'RETAIL' },
      headers: { 'idempotency-key': key },
    });
    expect(replay.status).toBe(201);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body.merchantId).toBe(saga.context.merchant.id);
  });

  it('cut during step 1 (outcome unknown, the PIN gone with the request): the next start undoes it', async () => {
    // What a kill -9 during the identity-provider call leaves: the run started, step 1 "started",
    // and (the call did go through) an identity-provider user with the run's id.
    const phone = '+237690400002';
    const sagaId = randomUUID();
    const idpUserId = randomUUID();
    const context = {
      registrationId: sagaId,
      kind: 'REGISTER_CUSTOMER',
      role: 'CUSTOMER',
      phone,
      ...person,
      email: null,
      idpUserId,
      userId: randomUUID(),
      profileId: randomUUID(),
      wallet: { ownerType: 'USER', ownerId: randomUUID(), holderName: 'Awa Nkoulou' },
      requestedBy: null,
    };
    await h.sql.query(
      `INSERT INTO orchestrator.sagas (id, kind, status, request_hash, phone, context) VALUES ($1, 'REGISTER_CUSTOMER', 'running', 'x', $2, $3)`,
      [sagaId, phone, context],
    );
    await h.sql.query(`INSERT INTO orchestrator.saga_events (saga_id, step, event) VALUES ($1, 'IDP_USER', 'started')`, [sagaId]);
    const created = await fetch(`${h.auth.url}/auth/internal/create-idp-user`, {
      method: 'POST',
      headers: { 'x-service-key': callerKey('orchestrator'), 'content-type': 'application/json' },
      body: JSON.stringify({ phone, pin: PIN, idpUserId }),
    });
    expect(created.status).toBe(201);

    expect(await restartAndRecover()).toBe(1);
    expect((await sagaOf(phone)).status).toBe('compensated');
    expect(await h.count(`SELECT count(*) n FROM auth.idp_users WHERE phone = $1`, [phone])).toBe(0);
    const events = await h.sql.query(`SELECT step, event FROM orchestrator.saga_events WHERE saga_id = $1 ORDER BY id`, [sagaId]);
    expect(events.rows.map((r) => `${r.step}:${r.event}`)).toEqual(['IDP_USER:started', 'IDP_USER:compensating', 'IDP_USER:compensated']);
    // and the phone can register for real now
    expect((await h.call('POST', '/api/orchestrator/auth/register', { body: { phone, pin: PIN, ...person } })).status).toBe(201);
  });

  it('cut after the wallet: finished at the next start, the wallet is the one the run created', async () => {
    const phone = '+237690400003';
    const cut = await h.call('POST', '/api/orchestrator/auth/register', {
      body: { phone, pin: PIN, ...person },
      headers: { 'x-saga-fault': 'crash:WALLET' },
    });
    expect(cut.status).toBe(503);
    const before = await sagaOf(phone);
    expect(before.context.wallet.walletId).toEqual(expect.any(String));
    expect(await restartAndRecover()).toBe(1);
    expect((await sagaOf(phone)).status).toBe('succeeded');
    const token = await h.login(phone, PIN);
    expect((await h.call('GET', '/api/orchestrator/me/wallet', { token })).body.walletId).toBe(before.context.wallet.walletId);
    expect(await h.count(`SELECT count(*) n FROM ledger.wallets WHERE owner_id = $1`, [before.context.wallet.ownerId])).toBe(1);
  });

  it('cut while compensating: the compensation is carried on', async () => {
    const phone = '+237690400004';
    await h.call('POST', '/api/orchestrator/auth/register', {
      body: { phone, pin: PIN, ...person },
      headers: { 'x-saga-fault': 'crash:PROFILE' },
    });
    const saga = await sagaOf(phone);
    // as if a compensation had begun (wallet step never ran) and the process died in it
    await h.sql.query(`UPDATE orchestrator.sagas SET status = 'compensating', error = $2 WHERE id = $1`, [
      saga.id,
      { code: 'UPSTREAM_UNAVAILABLE', message: 'ledger down', status: 502 },
    ]);
    await h.sql.query(`INSERT INTO orchestrator.saga_events (saga_id, step, event) VALUES ($1, 'PROFILE', 'compensated')`, [saga.id]);
    await h.sql.query(`DELETE FROM orchestrator.customers WHERE id = $1`, [saga.context.profileId]);
    expect(await restartAndRecover()).toBe(1);
    expect((await sagaOf(phone)).status).toBe('compensated');
    expect(await h.count(`SELECT count(*) n FROM auth.users WHERE phone = $1`, [phone])).toBe(0);
    expect(await h.count(`SELECT count(*) n FROM auth.idp_users WHERE phone = $1`, [phone])).toBe(0);
  });
});

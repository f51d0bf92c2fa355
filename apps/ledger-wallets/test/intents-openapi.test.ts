import { randomUUID } from 'node:crypto';
import { openApiOf, undocumented } from '../../../test/support/openapi-departures';
import { type Harness, contextFor, fundedAccount, intentBody, startLedger } from './ledger-harness';

/**
 * The intent routes answer exactly what their OpenAPI document says
 * (docs/contributing.md "Conventions as practised here"): every real answer of a whole life —
 * created, replayed, read, each move, the journal, a failure — is held against the documented
 * schema of its status, so IntentViewDto / IntentEventViewDto cannot drift from the views the code
 * builds.
 */
describe('ledger: the intent routes answer in their documented shapes', () => {
  let h: Harness;

  beforeAll(async () => {
    h = await startLedger();
  });
  afterAll(async () => {
    await h.close();
  });

  it('create, replay, read, the OTP and PIN moves, the confirm and its replay, the journal, and a failure', async () => {
    const doc = await openApiOf(h.app.app);
    const source = await fundedAccount(h, 20_000);
    const destination = await fundedAccount(h, 0);
    const answers: Array<[string, string, { status: number; body: unknown }]> = [];
    const record = (method: string, path: string, res: { status: number; body: unknown }) => {
      answers.push([method, path, res]);
      return res;
    };

    // The OTP branch, confirmed with a fee and an idempotency key.
    const body = intentBody(source, destination, 5_000, { requiresOtp: true, fee: 50, description: 'Loyer' });
    const created = record('POST', '/v1/internal/intents', await h.call('POST', '/v1/internal/intents', body));
    expect(created.status).toBe(201);
    const id = (created.body as { intentId: string }).intentId;
    const replayed = await h.call('POST', '/v1/internal/intents', body);
    expect(replayed.status).toBe(201);
    expect(replayed.headers.get('idempotent-replayed')).toBe('true');
    expect(replayed.body).toEqual(created.body);
    record('POST', '/v1/internal/intents', replayed);

    const move = (payload: Record<string, unknown>, headers: Record<string, string> = {}) =>
      h.call(
        'POST',
        `/v1/internal/intents/${id}/transition`,
        { actor: { id: 'user-1', ip: '10.0.0.1', userAgent: 'jest' }, ...payload },
        headers,
      );
    for (const toStatus of ['OTP_SENT', 'OTP_VERIFIED', 'PIN_VERIFIED']) {
      const res = record('POST', '/v1/internal/intents/{id}/transition', await move({ toStatus }));
      expect([res.status, (res.body as { status: string }).status]).toEqual([200, toStatus]);
    }
    const key = randomUUID();
    const confirm = { toStatus: 'SUCCEEDED', executionContext: contextFor(source, destination, 5_000, { fee: { amount: 50 } }) };
    const succeeded = record('POST', '/v1/internal/intents/{id}/transition', await move(confirm, { 'x-idempotency-key': key }));
    expect(succeeded.status).toBe(200);
    expect(succeeded.body).toMatchObject({
      status: 'SUCCEEDED',
      fee: 50,
      frozenAmount: 5_050,
      transactionId: expect.any(String),
      referenceId: expect.any(String),
    });
    const again = await move(confirm, { 'x-idempotency-key': key });
    expect(again.status).toBe(200);
    expect(again.body).toEqual(succeeded.body);
    record('POST', '/v1/internal/intents/{id}/transition', again);

    record('GET', '/v1/internal/intents/{id}', await h.call('GET', `/v1/internal/intents/${id}`));
    const journal = record('GET', '/v1/internal/intents/{id}/events', await h.call('GET', `/v1/internal/intents/${id}/events`));
    expect(journal.status).toBe(200);
    expect((journal.body as Array<{ event: string; fromStatus: string | null }>).map((e) => [e.fromStatus, e.event])).toEqual([
      [null, 'intent_created'],
      ['CREATED', 'otp_sent'],
      ['OTP_SENT', 'otp_ok'],
      ['OTP_VERIFIED', 'pin_ok'],
      ['PIN_VERIFIED', 'transaction_completed'],
    ]);

    // A failed intent: failureReason set, the hold released.
    const other = await h.call('POST', '/v1/internal/intents', intentBody(source, destination, 1_000));
    expect(other.status).toBe(201);
    const failed = record(
      'POST',
      '/v1/internal/intents/{id}/transition',
      await h.call('POST', `/v1/internal/intents/${other.body.intentId}/transition`, {
        toStatus: 'FAILED',
        actor: { id: 'user-1' },
        metadata: { reason: 'RISK_REJECTED' },
      }),
    );
    expect(failed.status).toBe(200);
    expect(failed.body).toMatchObject({ status: 'FAILED', failureReason: 'RISK_REJECTED' });
    const failedJournal = await h.call('GET', `/v1/internal/intents/${other.body.intentId}/events`);
    record('GET', '/v1/internal/intents/{id}/events', failedJournal);

    expect(answers.flatMap(([method, path, res]) => undocumented(doc, method, path, res))).toEqual([]);
  });

  it('documents every number of the ledger as an integer (money in the smallest unit, counts)', async () => {
    const doc = (await openApiOf(h.app.app)) as {
      components?: { schemas?: Record<string, { properties?: Record<string, { type?: string }> }> };
    };
    const fractional = Object.entries(doc.components?.schemas ?? {}).flatMap(([name, schema]) =>
      Object.entries(schema.properties ?? {})
        .filter(([, property]) => property.type === 'number')
        .map(([field]) => `${name}.${field}`),
    );
    expect(Object.keys(doc.components?.schemas ?? {}).length).toBeGreaterThan(5);
    expect(fractional).toEqual([]);
  });

  it('a field the documented view does not name is reported (the check can fail)', async () => {
    const doc = await openApiOf(h.app.app);
    const read = await h.call('GET', `/v1/internal/intents/${randomUUID()}`);
    expect(read.status).toBe(404);
    const fake = { status: 200, body: { intentId: randomUUID(), extra: 1 } };
    expect(undocumented(doc, 'GET', '/v1/internal/intents/{id}', fake)).toEqual(expect.arrayContaining([expect.stringContaining('extra')]));
  });
});

import { randomUUID } from 'node:crypto';
import { statementRecorder } from './statement-recorder';
import { MoneyPlatform, type TestUser } from '../../../test/e2e/money-platform';
import { BlocklistService } from '../src/risk/blocklist.service';

/**
 * The create's writes (risk decision, fee quote, record) through the real gateway and ledger: a
 * first attempt writes them as one statement, and a retry whose decision an earlier attempt stored
 * as a refusal is still refused, leaving nothing behind.
 */
describe('intent create: its writes as one statement', () => {
  const p = new MoneyPlatform();
  let alice: TestUser;
  let bob: TestUser;
  let recorder: ReturnType<typeof statementRecorder>;

  beforeAll(async () => {
    await p.start();
    [alice, bob] = await Promise.all([p.register('CUSTOMER'), p.register('CUSTOMER')]);
    await p.fund(alice.accounts.XAF, 100_000);
    recorder = statementRecorder(p);
  });
  afterAll(async () => {
    recorder?.restore();
    await p.stop();
  });

  const create = (user: TestUser, body: Record<string, unknown>) => p.call('POST', '/api/v1/intents', { token: user.token, body });

  const rowsOf = async (key: string) =>
    (
      await p.sql.query(
        `SELECT (SELECT count(*)::int FROM orchestrator.fee_quotes WHERE operation_id::text = $1) AS quotes,
                (SELECT array_agg(outcome ORDER BY created_at) FROM orchestrator.risk_decisions WHERE operation_id::text = $1 AND stage = 'CREATE') AS decisions,
                (SELECT count(*)::int FROM orchestrator.payment_intents WHERE idempotency_key::text = $1) AS records`,
        [key],
      )
    ).rows[0];

  it('a first transfer writes its decision, quote and record in one statement, without a transaction; its replay answers the same', async () => {
    const key = randomUUID();
    const body = { type: 'TRANSFER', amount: 5_000, clientPhone: bob.phone, idempotencyKey: key };
    const { result: created, statements } = await recorder.recorded(() => create(alice, body));
    expect(created.status).toBe(201);

    const writes = statements.filter((s) => /INSERT INTO orchestrator\.(fee_quotes|risk_decisions|payment_intents)/.test(s));
    expect(writes).toHaveLength(1);
    expect(writes[0]).toMatch(
      /INSERT INTO orchestrator\.risk_decisions[\s\S]*INSERT INTO orchestrator\.fee_quotes[\s\S]*INSERT INTO orchestrator\.payment_intents/,
    );
    expect(statements.filter((s) => /^(START TRANSACTION|BEGIN|COMMIT)/i.test(s.trim()))).toEqual([]);
    // The versions in force ride along the read of the key's stored answer.
    // (a version's document is read once per process, then cached: only the versions in force are read per request)
    const configReads = statements.filter((s) => /max\(v\.version\)/.test(s));
    expect(configReads).toHaveLength(1);
    expect(configReads[0]).toMatch(/FROM orchestrator\.payment_intents WHERE idempotency_key = \$1/);

    const record = (await p.sql.query(`SELECT * FROM orchestrator.payment_intents WHERE idempotency_key = $1`, [key])).rows[0];
    const quote = (await p.sql.query(`SELECT * FROM orchestrator.fee_quotes WHERE operation_id = $1`, [key])).rows[0];
    const decision = (await p.sql.query(`SELECT * FROM orchestrator.risk_decisions WHERE operation_id = $1`, [key])).rows[0];
    expect(record).toMatchObject({ quote_id: quote.id, risk_create_decision_id: decision.id, quoted_fee: quote.fee, stage: 'CREATED' });
    expect(record.quoted_commission).toBe(quote.commission);
    expect(record.grid_version).toBe(quote.grid_version);
    expect(record.ledger_request.metadata).toMatchObject({
      quoteId: quote.id,
      riskDecisionId: decision.id,
      gridVersion: quote.grid_version,
    });
    expect(record.ledger_request.fee).toBe(Number(quote.fee));
    expect(decision.outcome).toBe('ACCEPT');

    const replay = await create(alice, body);
    expect([replay.status, replay.body]).toEqual([201, created.body]);
    expect(await rowsOf(key)).toEqual({ quotes: 1, decisions: ['ACCEPT'], records: 1 });
  });

  it('a retry whose decision an earlier attempt stored as a refusal is refused again and writes neither quote nor record', async () => {
    const carol = await p.register('CUSTOMER');
    const blocklist = p.gateway.app.get(BlocklistService);
    const entry = await blocklist.add({ phone: carol.phone, list: 'SANCTIONS', reason: 'test', addedBy: 'test' });
    const key = randomUUID();
    const body = { type: 'TRANSFER', amount: 5_000, clientPhone: carol.phone, idempotencyKey: key };
    const before = await p.balance(alice.accounts.XAF);
    const first = await create(alice, body);
    expect([first.status, first.body.code]).toEqual([403, 'RISK_REJECTED']);

    // Judged afresh the retry would pass: the one-statement write is tried, and the stored refusal stands.
    await blocklist.remove(entry.id, { removedBy: 'test', reason: 'done' });
    const { result: retry, statements } = await recorder.recorded(() => create(alice, body));
    expect([retry.status, retry.body.code]).toEqual([403, 'RISK_REJECTED']);
    expect(retry.headers.get('x-risk-decision-id')).toBe(first.headers.get('x-risk-decision-id'));
    expect(
      statements.some((s) => /INSERT INTO orchestrator\.payment_intents/.test(s) && /INSERT INTO orchestrator\.risk_decisions/.test(s)),
    ).toBe(true);
    expect(await rowsOf(key)).toEqual({ quotes: 0, decisions: ['REJECT'], records: 0 });
    expect(await p.balance(alice.accounts.XAF)).toEqual(before);
  });
});

import { randomUUID } from 'node:crypto';
import { ConfigVersionsService } from '../src/config-api/config-versions.service';
import { ActiveConfigReader } from '../src/intents/active-config';
import { RECORD_COLUMNS } from '../src/intents/payment-intent.store';
import { statementRecorder } from './statement-recorder';
import { MoneyPlatform, type TestUser, payOk } from '../../../test/e2e/money-platform';

/**
 * The confirm's decisions (risk, fee, limit hold, ledger request) through the real gateway and
 * ledger: a first confirm writes them as one statement inside the limit locks' transaction; a
 * confirm that finds no room or a changed grid takes the transactional path, which words the
 * refusal or stores the changed fee; concurrent confirms still cannot pass a limit together.
 */
describe('intent confirm: its decisions as one statement', () => {
  const p = new MoneyPlatform();
  let versions: ConfigVersionsService;
  let bob: TestUser;
  let recorder: ReturnType<typeof statementRecorder>;

  beforeAll(async () => {
    await p.start();
    versions = p.gateway.app.get(ConfigVersionsService);
    bob = await p.register('CUSTOMER');
    recorder = statementRecorder(p);
  });
  afterAll(async () => {
    recorder?.restore();
    await p.stop();
  });

  /** A funded customer who has paid bob once already (a large amount is then no first payment to a stranger). */
  async function payer(amount: number): Promise<TestUser> {
    const user = await p.register('CUSTOMER');
    await p.fund(user.accounts.XAF, amount);
    await payOk(p, user, { type: 'TRANSFER', amount: 100, clientPhone: bob.phone });
    return user;
  }

  /** A transfer created and PIN-verified, ready to confirm. */
  async function verified(user: TestUser, amount: number): Promise<{ intentId: string; key: string }> {
    const key = randomUUID();
    const created = await p.call('POST', '/api/v1/intents', {
      token: user.token,
      body: { type: 'TRANSFER', amount, clientPhone: bob.phone, idempotencyKey: key },
    });
    expect(created.status).toBe(201);
    const intentId = created.body.intentId as string;
    const pin = await p.call('POST', `/api/v1/intents/${intentId}/verify-pin`, { token: user.token, body: { pin: user.pin } });
    expect(pin.status).toBe(200);
    return { intentId, key };
  }

  const confirm = (user: TestUser, intentId: string) => p.call('POST', `/api/v1/intents/${intentId}/confirm`, { token: user.token });

  /** The statements writing the confirm's decisions (the settle after the ledger's answer excepted). */
  const decisionWrites = (statements: string[]) =>
    statements.filter(
      (s) =>
        !/^WITH settled AS/.test(s.trim()) &&
        /INSERT INTO orchestrator\.risk_decisions|UPDATE orchestrator\.fee_quotes|INSERT INTO orchestrator\.limit_usage|SET confirm_request/.test(
          s,
        ),
    );

  it('a first confirm writes its risk decision, fee decision, hold and ledger request in one statement, in one transaction', async () => {
    const alice = await payer(50_000);
    const { intentId, key } = await verified(alice, 5_000);
    const { result: confirmed, statements } = await recorder.recorded(() => confirm(alice, intentId));
    expect(confirmed.status).toBe(200);

    const writes = decisionWrites(statements);
    expect(writes).toHaveLength(1);
    expect(writes[0]).toMatch(
      /INSERT INTO orchestrator\.risk_decisions[\s\S]*UPDATE orchestrator\.fee_quotes[\s\S]*INSERT INTO orchestrator\.limit_usage[\s\S]*SET confirm_request/,
    );
    // The transaction of the limit locks: opened with the locks in one round trip, that statement, its commit.
    const inTransaction = statements.filter((s) => /^(START TRANSACTION|BEGIN|COMMIT)/i.test(s.trim()));
    expect(inTransaction).toHaveLength(2);
    expect(inTransaction[0]).toMatch(/^BEGIN; SELECT pg_advisory_xact_lock/);
    expect(inTransaction[1]).toBe('COMMIT');
    expect(statements.indexOf(inTransaction[0])).toBe(statements.indexOf(writes[0]) - 1);
    expect(statements.indexOf(inTransaction[1])).toBe(statements.indexOf(writes[0]) + 1);
    // The versions in force ride along the read of the record; the quote's terms come from the record.
    // (a version's document is read once per process, then cached: only the versions in force are read per request)
    const configReads = statements.filter((s) => /max\(v\.version\)/.test(s));
    expect(configReads).toHaveLength(1);
    expect(configReads[0]).toMatch(/FROM orchestrator\.payment_intents WHERE ledger_intent_id = \$1/);
    expect(statements.filter((s) => /^SELECT [\s\S]*FROM orchestrator\.fee_quotes/.test(s.trim()))).toEqual([]);

    const record = (await p.sql.query(`SELECT * FROM orchestrator.payment_intents WHERE idempotency_key = $1`, [key])).rows[0];
    const quote = (await p.sql.query(`SELECT * FROM orchestrator.fee_quotes WHERE id = $1`, [record.quote_id])).rows[0];
    const decisions = (
      await p.sql.query(`SELECT id, outcome FROM orchestrator.risk_decisions WHERE operation_id = $1 AND stage = 'CONFIRM'`, [key])
    ).rows;
    const usage = (await p.sql.query(`SELECT subject_kind, status, amount FROM orchestrator.limit_usage WHERE operation_id = $1`, [key]))
      .rows;
    expect(decisions).toEqual([{ id: record.risk_confirm_decision_id, outcome: 'ACCEPT' }]);
    expect(quote).toMatchObject({ charge_rule: 'QUOTE_HONOURED', charged_fee: quote.fee, charged_grid_version: quote.grid_version });
    expect(usage).toEqual([{ subject_kind: 'CUSTOMER', status: 'SETTLED', amount: '5000' }]);
    expect(record.confirm_request.executionContext.fee).toEqual({ amount: Number(quote.fee) });
    expect(confirmed.body.fees).toBe(Number(quote.fee));

    // A retry answers the stored outcome and decides nothing again.
    const again = await confirm(alice, intentId);
    expect([again.status, again.body]).toEqual([200, confirmed.body]);
  });

  it('the record columns the prepared reads name are columns of the table (a renamed or dropped one fails here first)', async () => {
    const { rows } = await p.sql.query(
      `SELECT column_name FROM information_schema.columns WHERE table_schema = 'orchestrator' AND table_name = 'payment_intents'`,
    );
    const table = new Set(rows.map((r: { column_name: string }) => r.column_name));
    const listed = RECORD_COLUMNS.split(',').map((c) => c.trim());
    expect(listed.filter((c) => !table.has(c))).toEqual([]);
    expect(listed.length).toBeGreaterThan(40);
  });

  it('concurrent confirms of one customer pass the daily limit no further than one at a time would', async () => {
    // TIER_1: 100 000 per operation, 200 000 per day; the 100 already paid to bob counts.
    const carol = await payer(500_000);
    const ready: Array<{ intentId: string; key: string }> = [];
    // One at a time: concurrent right PINs of one person count as attempts in auth.
    for (let i = 0; i < 6; i += 1) ready.push(await verified(carol, 60_000));
    const before = await p.balance(carol.accounts.XAF);

    const answers = await Promise.all(ready.map(({ intentId }) => confirm(carol, intentId)));
    const passed = answers.filter((a) => a.status === 200);
    const refused = answers.filter((a) => a.status !== 200);
    expect(passed).toHaveLength(3);
    const refusal = [422, 'LIMIT_DAILY_EXCEEDED', String(200_000 - 100 - 180_000)];
    expect(refused.map((a) => [a.status, a.body.code, a.headers.get('x-limit-allowed')])).toEqual([refusal, refusal, refusal]);
    const charged = passed.reduce((sum, a) => sum + (a.body.amount as number) + (a.body.fees as number), 0);
    expect((await p.balance(carol.accounts.XAF)).balance).toBe(before.balance - charged);

    // A refused confirm leaves no decision, no hold and no request behind.
    const keys = ready.map((r) => r.key);
    const rows = (
      await p.sql.query(
        `SELECT pi.idempotency_key AS key, pi.confirm_request IS NOT NULL AS fixed,
                (SELECT count(*)::int FROM orchestrator.risk_decisions d WHERE d.operation_id::text = pi.idempotency_key::text AND d.stage = 'CONFIRM') AS decisions,
                (SELECT string_agg(u.status, ',') FROM orchestrator.limit_usage u WHERE u.operation_id::text = pi.idempotency_key::text) AS usage
           FROM orchestrator.payment_intents pi WHERE pi.idempotency_key = ANY($1::uuid[]) ORDER BY pi.stage, pi.idempotency_key`,
        [keys],
      )
    ).rows;
    const settled = rows.filter((r) => r.fixed);
    expect(settled.map((r) => [r.decisions, r.usage])).toEqual([
      [1, 'SETTLED'],
      [1, 'SETTLED'],
      [1, 'SETTLED'],
    ]);
    expect(rows.filter((r) => !r.fixed).map((r) => [r.decisions, r.usage])).toEqual([
      [0, null],
      [0, null],
      [0, null],
    ]);
  });

  it("a confirm that read the record before a twin finished answers the twin's outcome, not a refusal", async () => {
    const erin = await payer(50_000);
    const { intentId } = await verified(erin, 3_000);
    // The first confirm reads its record (no request fixed yet) and is held there until the second
    // one has finished: the ledger then says SUCCEEDED, where it expects PIN_VERIFIED.
    const reader = p.gateway.app.get(ActiveConfigReader, { strict: false });
    const along = reader.along.bind(reader);
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let readStale!: () => void;
    const stale = new Promise<void>((resolve) => (readStale = resolve));
    const spy = jest.spyOn(reader, 'along').mockImplementationOnce(async (read) => {
      const answer = await along(read);
      readStale();
      await held;
      return answer as never;
    });
    try {
      const late = confirm(erin, intentId);
      await stale;
      const first = await confirm(erin, intentId);
      expect(first.status).toBe(200);
      release();
      const answer = await late;
      expect([answer.status, answer.body]).toEqual([200, first.body]);
    } finally {
      release();
      spy.mockRestore();
    }
    expect((await p.sql.query(`SELECT count(*)::int AS n FROM ledger.transactions WHERE intent_id = $1`, [intentId])).rows[0].n).toBe(1);
  });

  it('a grid changed since the quote: the confirm decides in the transactional path and charges the lower fee', async () => {
    const dave = await payer(50_000);
    const { intentId, key } = await verified(dave, 20_000);
    const quoted = (await p.sql.query(`SELECT quoted_fee FROM orchestrator.payment_intents WHERE idempotency_key = $1`, [key])).rows[0];
    expect(Number(quoted.quoted_fee)).toBeGreaterThan(0);
    const active = await versions.active('pricing');
    const cheaper = structuredClone(active.document);
    for (const grid of cheaper.fees.filter((g) => g.type === 'TRANSFER' && g.currency === 'XAF')) {
      for (const band of grid.bands) Object.assign(band, { fixed: 0, rateBps: 0 });
    }
    await versions.append('pricing', { baseVersion: active.version, document: cheaper, createdBy: 'test', reason: 'test: free transfers' });
    try {
      const { result: confirmed, statements } = await recorder.recorded(() => confirm(dave, intentId));
      expect(confirmed.status).toBe(200);
      expect(confirmed.body.fees).toBe(0);
      // Each decision is its own statement here (the first decision of the fee depends on the database's clock).
      const writes = decisionWrites(statements);
      expect(writes.filter((s) => /UPDATE orchestrator\.fee_quotes/.test(s))).toHaveLength(1);
      expect(writes.filter((s) => /UPDATE orchestrator\.fee_quotes/.test(s) && /INSERT INTO orchestrator\.limit_usage/.test(s))).toEqual(
        [],
      );
      const quote = (
        await p.sql.query(
          `SELECT q.charge_rule, q.charged_fee FROM orchestrator.fee_quotes q JOIN orchestrator.payment_intents pi ON pi.quote_id = q.id
            WHERE pi.idempotency_key = $1`,
          [key],
        )
      ).rows[0];
      expect(quote).toEqual({ charge_rule: 'ACTIVE_GRID_LOWER', charged_fee: '0' });
    } finally {
      const now = await versions.active('pricing');
      await versions.append('pricing', { baseVersion: now.version, document: active.document, createdBy: 'test', reason: 'test restore' });
    }
  });
});

import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { CASE_FACTS, type CaseFacts, type CaseFactsSource, type SuspicionClosing } from '../src/monitoring/case-facts';
import { CaseStore } from '../src/monitoring/cases/case.store';
import { MonitoringFeed } from '../src/monitoring/feed/monitoring-feed.service';
import { callerKey } from '../../../test/support/test-env';
import { ADMIN_PHONE, ADMIN_PIN, type Answer, OrchestratorHarness } from './pricing-harness';
import { HOUR, MINUTE, type Person, completed, createPersons } from './monitoring-support';
import { newPhone } from '../../../test/support/phones';

const PIN = '4826';

/**
 * A compliance case end to end through the real routes with real staff tokens (the real auth):
 * the feed raises an alert, which opens a case; an officer takes it, writes a note, attaches
 * evidence and decides. FREEZE goes through the maker-checker engine: a second officer approves
 * and the person is frozen. A suspicion report closes a case through the case facts contract.
 */
describe('compliance cases', () => {
  const h = new OrchestratorHarness();
  let feed: MonitoringFeed;
  let alice: { token: string; userId: string };
  let bruno: { token: string; userId: string };
  let support: { token: string; userId: string };
  let admin: { token: string; userId: string };
  const now = Date.now();

  beforeAll(async () => {
    await h.start({ APPROVAL_SWEEP_INTERVAL_MS: '0' }, { withAuth: true });
    feed = h.get(MonitoringFeed);
    await h.createUser('+237690002901', PIN, ['COMPLIANCE']);
    await h.createUser('+237690002902', PIN, ['COMPLIANCE']);
    await h.createUser('+237690002903', PIN, ['SUPPORT']);
    [alice, bruno, support] = [
      await h.login('+237690002901', PIN),
      await h.login('+237690002902', PIN),
      await h.login('+237690002903', PIN),
    ];
    admin = await h.login(ADMIN_PHONE, ADMIN_PIN);
  }, 60_000);
  afterAll(() => h.stop());

  const code = (res: Answer) => `${res.statusCode} ${res.json<{ code?: string }>().code ?? ''}`.trim();
  const call = (method: 'GET' | 'POST', url: string, token: string, body?: unknown) => h.request(method, url, { token, body });

  /** The case as the officer reads it, and the version a decision on it names. */
  const read = async (caseId: string, token = alice.token) =>
    (await call('GET', `/api/v1/compliance/cases/${caseId}`, token)).json<Record<string, any>>();
  const versionOf = async (caseId: string) => (await read(caseId)).version as number;

  /** A customer known to auth (so a freeze reaches it) and to the orchestrator's identities. */
  async function subject(): Promise<Person> {
    const key = { 'content-type': 'application/json', 'x-service-key': callerKey('orchestrator') };
    const post = async (path: string, body: unknown) => {
      const res = await fetch(`${h.auth!.url}${path}`, { method: 'POST', headers: key, body: JSON.stringify(body) });
      return (await res.json()) as Record<string, string>;
    };
    const phone = newPhone();
    const { idpUserId } = await post('/auth/internal/create-idp-user', { phone, pin: PIN });
    const { id } = await post('/auth/internal/create-local-user', { idpUserId, roles: ['CUSTOMER'] });
    const [person] = await createPersons(h.sql, 1, 'CUSTOMER');
    // the same person under auth's user id
    await h.sql.query(`UPDATE orchestrator.customers SET user_id = $1 WHERE id = $2`, [id, person.customerId]);
    return { ...person, userId: id };
  }

  /** Three near-threshold transfers: one STRUCTURING alert about the payer, in a new case. */
  async function caseAbout(payer: Person): Promise<{ caseId: string; references: string[] }> {
    const [payee] = await createPersons(h.sql, 1, 'CUSTOMER');
    const events = [0, 1, 2].map((i) => completed('TRANSFER', payer, payee, 950_000, now - (3 - i) * HOUR));
    await feed.ingest(events);
    const alerts = await call('GET', `/api/v1/compliance/alerts?subjectUserId=${payer.userId}`, alice.token);
    expect(alerts.statusCode).toBe(200);
    const [alert] = alerts.json<{ items: Array<{ caseId: string; rule: string }> }>().items;
    expect(alert.rule).toBe('STRUCTURING');
    return { caseId: alert.caseId, references: events.map((e) => e.referenceId) };
  }

  it('alert → case → assignment → note → evidence → NO_ACTION, every step in the history and the clock', async () => {
    const payer = await subject();
    const { caseId, references } = await caseAbout(payer);

    const opened = (await call('GET', `/api/v1/compliance/cases/${caseId}`, alice.token)).json<Record<string, any>>();
    expect(opened).toMatchObject({
      status: 'OPEN',
      subjectUserId: payer.userId,
      subjectKind: 'CUSTOMER',
      assigneeId: null,
      alertCount: 1,
      subject: { name: 'Test Person', accountIds: [payer.account], person360: `/api/backoffice/people/${payer.userId}` },
      clock: { timeToAssignmentSeconds: null, timeToDecisionSeconds: null },
    });
    expect(opened.reference).toMatch(/^MC-\d{6}$/);
    expect(opened.alerts[0]).toMatchObject({
      rule: 'STRUCTURING',
      configVersion: 1,
      transactionReferences: references,
      caseReference: opened.reference,
    });
    expect(opened.operations.map((o: { reference: string }) => o.reference)).toEqual(references);

    expect(code(await call('GET', '/api/v1/compliance/cases', support.token))).toBe('403 FORBIDDEN');
    expect(opened.version).toBe(2); // OPENED, ALERT_ADDED
    expect(
      code(
        await call('POST', `/api/v1/compliance/cases/${caseId}/decision`, alice.token, {
          decision: 'NO_ACTION',
          note: 'nothing',
          expectedVersion: opened.version,
        }),
      ),
    ).toBe('409 CASE_NOT_ASSIGNED_TO_YOU');
    const noVersion = await call('POST', `/api/v1/compliance/cases/${caseId}/decision`, alice.token, {
      decision: 'NO_ACTION',
      note: 'Receipts match',
    });
    expect(code(noVersion)).toBe('400 VALIDATION_ERROR');
    expect(noVersion.json<{ errors: Array<{ field: string; code: string }> }>().errors).toEqual([
      expect.objectContaining({ field: 'expectedVersion', code: 'INVALID_VERSION' }),
    ]);
    const assigned = await call('POST', `/api/v1/compliance/cases/${caseId}/assignment`, alice.token, {});
    expect(assigned.statusCode).toBe(200);
    expect(assigned.json()).toMatchObject({
      status: 'IN_REVIEW',
      assigneeId: alice.userId,
      clock: { timeToAssignmentSeconds: expect.any(Number) },
    });
    expect(code(await call('POST', `/api/v1/compliance/cases/${caseId}/assignment`, alice.token, { assigneeId: support.userId }))).toBe(
      '422 CASE_ASSIGNEE_NOT_OFFICER',
    );
    expect(code(await call('POST', `/api/v1/compliance/cases/${caseId}/assignment`, alice.token, { assigneeId: randomUUID() }))).toBe(
      '422 CASE_ASSIGNEE_NOT_OFFICER',
    );

    expect(
      (await call('POST', `/api/v1/compliance/cases/${caseId}/notes`, alice.token, { text: 'Asked the customer for receipts' })).statusCode,
    ).toBe(200);
    expect(code(await call('POST', `/api/v1/compliance/cases/${caseId}/notes`, alice.token, { text: '   ' }))).toBe('400 VALIDATION_ERROR');
    expect(
      code(
        await call('POST', `/api/v1/compliance/cases/${caseId}/evidence`, alice.token, { kind: 'TRANSACTION', reference: 'MMPTXNOSUCH' }),
      ),
    ).toBe('404 MONITORED_OPERATION_NOT_FOUND');
    expect(code(await call('POST', `/api/v1/compliance/cases/${caseId}/evidence`, alice.token, { kind: 'TRANSACTION' }))).toBe(
      '400 VALIDATION_ERROR',
    );
    await call('POST', `/api/v1/compliance/cases/${caseId}/evidence`, alice.token, {
      kind: 'TRANSACTION',
      reference: references[1],
      note: 'the largest',
    });
    const before = new Date().toISOString();
    const withEvidence = await call('POST', `/api/v1/compliance/cases/${caseId}/evidence`, alice.token, { kind: 'PERSON_360' });
    expect(withEvidence.json<{ evidence: unknown[] }>().evidence).toEqual([
      expect.objectContaining({ kind: 'TRANSACTION', reference: references[1], note: 'the largest', addedBy: alice.userId }),
      expect.objectContaining({
        kind: 'PERSON_360',
        userId: payer.userId,
        link: `/api/backoffice/people/${payer.userId}`,
        snapshotCut: {},
        addedBy: alice.userId,
      }),
    ]);
    // the evidence is the person 360 view itself, as the route serves it to the same officer
    const evidence360 = withEvidence.json<{ evidence: Array<Record<string, any>> }>().evidence[1];
    const live = await call('GET', `/api/backoffice/people/${payer.userId}`, alice.token);
    expect(live.statusCode).toBe(200);
    const view = live.json<Record<string, any>>();
    expect(Object.keys(evidence360.snapshot).sort()).toEqual(Object.keys(view).sort());
    expect(evidence360.snapshot).toMatchObject({
      userId: payer.userId,
      kind: 'CUSTOMER',
      role: 'CUSTOMER',
      status: 'active',
      kycTier: view.kycTier,
      identity: view.identity,
      recentOperations: view.recentOperations,
      wallet: { walletId: view.wallet.walletId },
    });
    expect(view.identity).toMatchObject({ firstName: 'Test', lastName: 'Person', customerId: payer.customerId });
    expect(evidence360.snapshotTakenAt >= before && evidence360.snapshotTakenAt <= evidence360.addedAt).toBe(true);
    // stored whole, with its size; shown once: the history entry carries the rest of the evidence, not the snapshot
    const [stored] = (
      await h.sql.query(`SELECT details FROM orchestrator.monitoring_case_events WHERE case_id = $1 AND details->>'kind' = 'PERSON_360'`, [
        caseId,
      ])
    ).rows;
    expect(stored.details.snapshot).toEqual(evidence360.snapshot);
    expect(stored.details.snapshotBytes).toBe(Buffer.byteLength(JSON.stringify(stored.details.snapshot)));
    const historyEntry = withEvidence.json<{ history: Array<{ details: Record<string, unknown> }> }>().history.at(-1)!;
    expect(historyEntry.details).toMatchObject({ kind: 'PERSON_360', userId: payer.userId, snapshotCut: {} });
    expect(historyEntry.details).not.toHaveProperty('snapshot');

    const decided = await call('POST', `/api/v1/compliance/cases/${caseId}/decision`, alice.token, {
      decision: 'NO_ACTION',
      note: 'Receipts match the deposits',
      expectedVersion: withEvidence.json<{ version: number }>().version,
    });
    expect(decided.statusCode).toBe(200);
    expect(decided.json()).toMatchObject({
      approvalRequest: null,
      case: {
        status: 'CLOSED',
        decision: 'NO_ACTION',
        decisionNote: 'Receipts match the deposits',
        decidedBy: alice.userId,
        clock: { timeToDecisionSeconds: expect.any(Number) },
      },
    });
    const history = decided.json<{ case: { history: Array<{ kind: string; actorId: string | null }> } }>().case.history;
    expect(history.map((e) => e.kind)).toEqual(['OPENED', 'ALERT_ADDED', 'ASSIGNED', 'NOTE', 'EVIDENCE', 'EVIDENCE', 'DECIDED']);
    expect(history[0].actorId).toBeNull();
    expect(code(await call('POST', `/api/v1/compliance/cases/${caseId}/notes`, alice.token, { text: 'late' }))).toBe('409 CASE_CLOSED');
    // the database keeps a closed case as it is, whoever asks
    await expect(
      h.sql.query(`UPDATE orchestrator.monitoring_cases SET decision_note = 'rewritten' WHERE id = $1`, [caseId]),
    ).rejects.toThrow(/closed case/);
    await expect(h.sql.query(`DELETE FROM orchestrator.monitoring_case_events WHERE case_id = $1`, [caseId])).rejects.toThrow(
      /append-only/,
    );

    // the officers' writes are in the staff audit trail
    const audited = await h.sql.query(
      `SELECT count(*)::int AS n FROM orchestrator.staff_audit_trail WHERE action LIKE '%/v1/compliance/cases/%' AND phase = 'outcome'`,
    );
    expect(audited.rows[0].n).toBeGreaterThanOrEqual(6);

    // a new alert about the same person opens a new case: the closed one never changes
    const [sender] = await createPersons(h.sql, 1, 'CUSTOMER');
    const [onward] = await createPersons(h.sql, 1, 'CUSTOMER');
    await feed.ingest([
      completed('TRANSFER', sender, payer, 400_000, now - 20 * MINUTE),
      completed('TRANSFER', payer, onward, 390_000, now - 10 * MINUTE),
    ]);
    const cases = await call('GET', `/api/v1/compliance/cases?subjectUserId=${payer.userId}`, alice.token);
    expect(cases.json<{ items: Array<{ status: string; id: string }> }>().items.map((c) => c.status)).toEqual(['OPEN', 'CLOSED']);
  });

  it('FREEZE: submitted by the assigned officer, approved by a second officer, freezes the person and closes the case', async () => {
    const payer = await subject();
    const { caseId } = await caseAbout(payer);
    expect(
      (await call('POST', `/api/v1/compliance/cases/${caseId}/assignment`, alice.token, { assigneeId: bruno.userId })).json(),
    ).toMatchObject({
      assigneeId: bruno.userId,
      status: 'IN_REVIEW',
    });

    const asked = await call('POST', `/api/v1/compliance/cases/${caseId}/decision`, bruno.token, {
      decision: 'FREEZE',
      note: 'Structuring confirmed',
      expectedVersion: await versionOf(caseId),
    });
    expect(asked.statusCode).toBe(202);
    const { approvalRequest } = asked.json<{ approvalRequest: { id: string; status: string; action: string } }>();
    expect(approvalRequest).toMatchObject({ action: 'CASE_FREEZE', status: 'PENDING' });
    expect(asked.json()).toMatchObject({ case: { status: 'DECISION_PENDING', pendingRequestId: approvalRequest.id } });
    expect(
      code(
        await call('POST', `/api/v1/compliance/cases/${caseId}/decision`, bruno.token, {
          decision: 'NO_ACTION',
          note: 'changed my mind',
          expectedVersion: await versionOf(caseId),
        }),
      ),
    ).toBe('409 CASE_DECISION_PENDING');
    expect(code(await call('POST', `/api/backoffice/approvals/${approvalRequest.id}/approve`, bruno.token, { reason: 'mine' }))).toBe(
      '403 APPROVAL_SELF_DECISION',
    );
    const status = async () =>
      (await h.sql.query(`SELECT status FROM orchestrator.customers WHERE user_id = $1`, [payer.userId])).rows[0].status;
    expect(await status()).toBe('active');

    const approved = await call('POST', `/api/backoffice/approvals/${approvalRequest.id}/approve`, alice.token, {
      reason: 'Agreed, freeze',
    });
    expect(code(approved)).toBe('200');
    expect(approved.json()).toMatchObject({ status: 'EXECUTED', checker: { userId: alice.userId }, result: { caseId, status: 'frozen' } });
    expect(await status()).toBe('frozen');
    const closed = (await call('GET', `/api/v1/compliance/cases/${caseId}`, alice.token)).json<Record<string, any>>();
    expect(closed).toMatchObject({
      status: 'CLOSED',
      decision: 'FREEZE',
      decisionRequestId: approvalRequest.id,
      decidedBy: bruno.userId,
      pendingRequestId: null,
    });
    expect(closed.history.map((e: { kind: string }) => e.kind).slice(-2)).toEqual(['DECISION_REQUESTED', 'DECIDED']);
    expect(closed.history.at(-1).details).toMatchObject({ decision: 'FREEZE', approvedBy: alice.userId });
  });

  it('a rejected FREEZE puts the case back in review; the person stays as they were', async () => {
    const payer = await subject();
    const { caseId } = await caseAbout(payer);
    await call('POST', `/api/v1/compliance/cases/${caseId}/assignment`, bruno.token, {});
    const asked = await call('POST', `/api/v1/compliance/cases/${caseId}/decision`, bruno.token, {
      decision: 'FREEZE',
      note: 'Looks like structuring',
      expectedVersion: await versionOf(caseId),
    });
    const requestId = asked.json<{ approvalRequest: { id: string } }>().approvalRequest.id;
    expect(code(await call('POST', `/api/backoffice/approvals/${requestId}/reject`, alice.token, { reason: 'Not enough yet' }))).toBe(
      '200',
    );
    const back = (await call('GET', `/api/v1/compliance/cases/${caseId}`, bruno.token)).json<Record<string, any>>();
    expect(back).toMatchObject({ status: 'IN_REVIEW', pendingRequestId: null, decision: null });
    expect(back.history.at(-1)).toMatchObject({ kind: 'DECISION_WITHDRAWN', actorId: alice.userId, details: { requestId } });
    expect((await h.sql.query(`SELECT status FROM orchestrator.customers WHERE user_id = $1`, [payer.userId])).rows[0].status).toBe(
      'active',
    );
  });

  it('the case facts contract: a suspicion report closes the case in the caller’s transaction, built from the facts read under its lock', async () => {
    const payer = await subject();
    const { caseId, references } = await caseAbout(payer);
    await call('POST', `/api/v1/compliance/cases/${caseId}/assignment`, alice.token, {});
    await call('POST', `/api/v1/compliance/cases/${caseId}/notes`, alice.token, { text: 'Cash from an unknown source' });
    const facts = h.get<CaseFactsSource>(CASE_FACTS as never);
    const found = await facts.factsOf(caseId);
    expect(found).toMatchObject({
      caseId,
      status: 'IN_REVIEW',
      assigneeId: alice.userId,
      version: 4, // OPENED, ALERT_ADDED, ASSIGNED, NOTE
      subject: { kind: 'CUSTOMER', userId: payer.userId, name: 'Test Person', accountIds: [payer.account] },
      alerts: [
        { rule: 'STRUCTURING', configVersion: 1, transactionReferences: references, operationsTotal: references.length, truncated: false },
      ],
      notes: [{ authorId: alice.userId, text: 'Cash from an unknown source' }],
    });
    expect(found.version).toBe(await versionOf(caseId));
    expect(found.operations.map((o) => [o.reference, o.amount, o.type])).toEqual(references.map((r) => [r, 950_000, 'TRANSFER']));
    await expect(facts.factsOf(randomUUID())).rejects.toMatchObject({ code: 'CASE_NOT_FOUND' });

    const ds = h.get(DataSource);
    const close = (closing: Partial<SuspicionClosing>, report: (f: CaseFacts) => Promise<void> = async () => undefined) =>
      ds.transaction((tx) =>
        facts.closeWithSuspicionReport(
          tx,
          { caseId, expectedVersion: found.version, reportId: randomUUID(), actorId: alice.userId, ...closing },
          report,
        ),
      );
    const untouched = async () => expect(await facts.factsOf(caseId)).toEqual(found);
    await expect(close({ actorId: bruno.userId })).rejects.toMatchObject({ code: 'CASE_NOT_ASSIGNED_TO_YOU' });
    await expect(close({ expectedVersion: found.version - 1 })).rejects.toMatchObject({ code: 'CASE_CHANGED' });
    await expect(close({ caseId: randomUUID() })).rejects.toMatchObject({ code: 'CASE_NOT_FOUND' });
    // the report could not be stored: the case is not closed
    await expect(
      close({}, async () => {
        throw new Error('report storage failed');
      }),
    ).rejects.toThrow('report storage failed');
    await untouched();

    const reportId = randomUUID();
    let given: CaseFacts | null = null;
    await close({ reportId }, async (f) => {
      given = f;
    });
    expect(given).toEqual(found);
    const closed = await read(caseId);
    expect(closed).toMatchObject({ status: 'CLOSED', decision: 'SUSPICION_REPORT', decisionReportId: reportId, decidedBy: alice.userId });
    expect(closed.history.at(-1)).toMatchObject({ kind: 'DECIDED', details: { decision: 'SUSPICION_REPORT', reportId } });
    await expect(close({ expectedVersion: closed.version })).rejects.toMatchObject({ code: 'CASE_ALREADY_REPORTED' });
  });

  it('an alert joining the case after the officer read it: NO_ACTION, FREEZE and a suspicion report are refused 409 CASE_CHANGED', async () => {
    const payer = await subject();
    const { caseId } = await caseAbout(payer);
    await call('POST', `/api/v1/compliance/cases/${caseId}/assignment`, alice.token, {});
    const seen = await read(caseId);
    expect(seen).toMatchObject({ status: 'IN_REVIEW', alertCount: 1, version: 3 });

    // meanwhile the feed finds money passing straight through the same person: the alert joins the open case
    const [sender] = await createPersons(h.sql, 1, 'CUSTOMER');
    const [onward] = await createPersons(h.sql, 1, 'CUSTOMER');
    await feed.ingest([
      completed('TRANSFER', sender, payer, 400_000, now - 20 * MINUTE),
      completed('TRANSFER', payer, onward, 390_000, now - 10 * MINUTE),
    ]);

    const decide = (decision: string, expectedVersion: number, token = alice.token) =>
      call('POST', `/api/v1/compliance/cases/${caseId}/decision`, token, { decision, note: 'Nothing unusual', expectedVersion });
    const report = (expectedVersion: number, token = alice.token) =>
      call('POST', '/api/v1/compliance/reports/suspicion', token, {
        caseId,
        expectedVersion,
        grounds: ['Deposits split below the reporting threshold'],
        narrative: 'Three transfers of 950 000 XAF within three hours, each just under the threshold.',
      });
    expect(code(await decide('NO_ACTION', seen.version))).toBe('409 CASE_CHANGED');
    expect(code(await decide('FREEZE', seen.version))).toBe('409 CASE_CHANGED');
    expect(code(await report(seen.version))).toBe('409 CASE_CHANGED');

    // nothing changed: the case is open with the new alert, no FREEZE request and no report were left behind
    const current = await read(caseId);
    expect(current).toMatchObject({
      status: 'IN_REVIEW',
      decision: null,
      pendingRequestId: null,
      alertCount: 2,
      version: seen.version + 1,
    });
    expect(current.alerts.map((a: { rule: string }) => a.rule)).toEqual(['STRUCTURING', 'PASS_THROUGH']);
    expect(current.history.at(-1)).toMatchObject({ kind: 'ALERT_ADDED', details: { rule: 'PASS_THROUGH' } });
    const left = await h.sql.query(
      `SELECT (SELECT count(*) FROM orchestrator.approval_requests WHERE action = 'CASE_FREEZE' AND payload->>'caseId' = $1::text)::int AS requests,
              (SELECT count(*) FROM orchestrator.approval_preparations WHERE payload->>'caseId' = $1::text)::int AS marks,
              (SELECT count(*) FROM orchestrator.regulatory_reports WHERE case_id = $1::uuid)::int AS reports`,
      [caseId],
    );
    expect(left.rows[0]).toEqual({ requests: 0, marks: 0, reports: 0 });

    // only the assignee makes the report, on the case as it is now; it names both alerts
    expect(code(await report(current.version, bruno.token))).toBe('409 CASE_NOT_ASSIGNED_TO_YOU');
    const made = await report(current.version);
    expect(made.statusCode).toBe(201);
    expect(made.json<{ content: { alerts: Array<{ rule: string }> } }>().content.alerts.map((a) => a.rule)).toEqual([
      'STRUCTURING',
      'PASS_THROUGH',
    ]);
    expect(await read(caseId)).toMatchObject({ status: 'CLOSED', decision: 'SUSPICION_REPORT', alertCount: 2 });
  });

  it('the case view is read once and bounded: 50 alerts and 100 operations with their totals, the rest paged', async () => {
    const payer = await subject();
    const { caseId, references } = await caseAbout(payer);
    // 117 more operations of the payer and 50 more alerts, the last naming all of them
    const extra = await h.sql.query(
      `INSERT INTO orchestrator.monitored_operations (event_id, transaction_id, reference, intent_type, amount, fee, currency,
              source_account_id, destination_account_id, source_user_id, source_kind, occurred_at)
       SELECT gen_random_uuid(), gen_random_uuid(), 'MMPTXBOUND' || lpad(i::text, 4, '0'), 'TRANSFER', 1000 + i, 0, 'XAF',
              $1, gen_random_uuid(), $2, 'CUSTOMER', now() - interval '1 hour' + make_interval(secs => i)
         FROM generate_series(1, 117) AS i
       RETURNING transaction_id::text, reference`,
      [payer.account, payer.userId],
    );
    const extraIds: string[] = extra.rows.map((r) => r.transaction_id);
    // copies of the case's alert (whatever columns the table has), each with its own window end
    await h.sql.query(
      `INSERT INTO orchestrator.monitoring_alerts
       SELECT r.* FROM orchestrator.monitoring_alerts a, generate_series(1, 50) AS g(i),
              jsonb_populate_record(NULL::orchestrator.monitoring_alerts, to_jsonb(a) || jsonb_build_object(
                'id', gen_random_uuid(), 'window_end', a.window_end + make_interval(secs => g.i), 'raised_at', a.raised_at + make_interval(secs => g.i),
                'transaction_ids', CASE WHEN g.i = 50 THEN to_jsonb($2::uuid[]) ELSE to_jsonb(a.transaction_ids) END,
                'operations_total', CASE WHEN g.i = 50 THEN 117 ELSE cardinality(a.transaction_ids) END, 'truncated', false)) AS r
        WHERE a.case_id = $1`,
      [caseId, extraIds],
    );
    const all = [...references, ...extra.rows.sort((x, y) => x.reference.localeCompare(y.reference)).map((r) => r.reference)];

    const view = await read(caseId);
    expect(view).toMatchObject({ alertCount: 51, operationsTotal: 120 });
    expect(view.alerts).toHaveLength(50);
    expect(view.operations.map((o: { reference: string }) => o.reference)).toEqual(all.slice(0, 100));
    const rest = await call(
      'GET',
      `/api/v1/compliance/cases/${caseId}/operations?cursor=${view.operationsNextCursor}&limit=50`,
      alice.token,
    );
    expect(rest.json()).toMatchObject({ total: 120, nextCursor: null });
    expect(rest.json<{ items: Array<{ reference: string }> }>().items.map((o) => o.reference)).toEqual(all.slice(100));
    const first = await call('GET', `/api/v1/compliance/cases/${caseId}/operations?limit=60`, alice.token);
    expect(first.json<{ items: unknown[] }>().items).toHaveLength(60);
    const second = await call(
      'GET',
      `/api/v1/compliance/cases/${caseId}/operations?limit=60&cursor=${first.json<{ nextCursor: string }>().nextCursor}`,
      alice.token,
    );
    expect(second.json<{ items: Array<{ reference: string }> }>().items.map((o) => o.reference)).toEqual(all.slice(60));
    expect(code(await call('GET', `/api/v1/compliance/cases/${caseId}/operations?cursor=zzz`, alice.token))).toBe('400 VALIDATION_ERROR');
    expect(code(await call('GET', `/api/v1/compliance/cases/${randomUUID()}/operations`, alice.token))).toBe('404 CASE_NOT_FOUND');
    // all 51 alerts are in the list of the case
    const listed = await call('GET', `/api/v1/compliance/alerts?caseId=${caseId}&limit=100`, alice.token);
    expect(listed.json<{ items: unknown[] }>().items).toHaveLength(51);
  });

  it('a case’s operations are found through the transaction_id index, not by reading every monitored operation', async () => {
    // The planner reads a table of a few rows whole whatever its indexes, so 20 000 other operations
    // are added first, in a transaction rolled back at the end. The store's own SQL is explained.
    const payer = await subject();
    const { caseId } = await caseAbout(payer);
    const store = h.get(CaseStore);
    const plans: string[] = [];
    const explain = {
      query: async (text: string, params?: unknown[]) => {
        const { rows } = await h.sql.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${text}`, params);
        plans.push(rows.map((r) => r['QUERY PLAN']).join('\n'));
        return [{ total: 0 }]; // what the store reads of a count: the plan is all this test wants
      },
    };
    // read before the transaction: the app's own connection would wait on its locks
    const ids = (await h.get<CaseFactsSource>(CASE_FACTS as never).factsOf(caseId)).operations.map((o) => o.transactionId);
    await h.sql.query('BEGIN');
    try {
      await h.sql.query(
        `INSERT INTO orchestrator.monitored_operations (event_id, transaction_id, reference, intent_type, amount, fee, currency,
                                                       source_account_id, destination_account_id, occurred_at)
         SELECT gen_random_uuid(), gen_random_uuid(), 'EXPLAIN' || g, 'TRANSFER', 1000, 0, 'XAF', gen_random_uuid(), gen_random_uuid(),
                now() - g * interval '1 minute'
           FROM generate_series(1, 20000) g`,
      );
      await h.sql.query('ANALYZE orchestrator.monitored_operations');
      await store.operations(ids, explain);
      await store.operationPage(caseId, 100, null, explain);
    } finally {
      await h.sql.query('ROLLBACK');
    }
    expect(plans).toHaveLength(3); // the facts' operations, the case view's page and its count
    for (const plan of plans) {
      expect(plan).toContain('monitored_operations_transaction_idx');
      expect(plan).not.toMatch(/Seq Scan on monitored_operations/);
    }
  });

  it('the staff audit trail names the case or the alert each officer read or write is about', async () => {
    const [{ seq }] = (await h.sql.query(`SELECT coalesce(max(seq), 0)::int AS seq FROM orchestrator.staff_audit_trail`)).rows;
    const payer = await subject();
    const { caseId } = await caseAbout(payer); // reads the alerts filtered on the payer
    const alertId = (await call('GET', `/api/v1/compliance/alerts?caseId=${caseId}`, alice.token)).json<{ items: Array<{ id: string }> }>()
      .items[0].id;
    expect((await call('GET', `/api/v1/compliance/alerts/${alertId}`, alice.token)).statusCode).toBe(200);
    expect((await call('GET', `/api/v1/compliance/cases?subjectUserId=${payer.userId}`, alice.token)).statusCode).toBe(200);
    expect((await call('GET', `/api/v1/compliance/cases/${caseId}`, alice.token)).statusCode).toBe(200);
    expect((await call('POST', `/api/v1/compliance/cases/${caseId}/assignment`, alice.token, {})).statusCode).toBe(200);
    expect((await call('POST', `/api/v1/compliance/cases/${caseId}/notes`, alice.token, { text: 'Looked at it' })).statusCode).toBe(200);
    expect((await call('POST', `/api/v1/compliance/cases/${caseId}/evidence`, alice.token, { kind: 'PERSON_360' })).statusCode).toBe(200);
    // the 360 view of someone other than the subject (whoever sent the money, say)
    const other = await subject();
    const otherEvidence = await call('POST', `/api/v1/compliance/cases/${caseId}/evidence`, alice.token, {
      kind: 'PERSON_360',
      userId: other.userId,
    });
    expect(otherEvidence.statusCode).toBe(200);
    const decision = await call('POST', `/api/v1/compliance/cases/${caseId}/decision`, alice.token, {
      decision: 'NO_ACTION',
      note: 'Explained',
      expectedVersion: otherEvidence.json<{ version: number }>().version,
    });
    expect(decision.statusCode).toBe(200);
    expect((await call('GET', '/api/v1/compliance/monitoring/rules', alice.token)).statusCode).toBe(200); // not a person's data

    const rows = (
      await h.sql.query(
        `SELECT phase, action, target_type, target_id, outcome_status FROM orchestrator.staff_audit_trail
          WHERE actor_user_id = $1 AND seq > $2 AND action LIKE '%/v1/compliance/%' ORDER BY seq`,
        [alice.userId, seq],
      )
    ).rows;
    /** a 360 view read as evidence: its own record, naming the person, between the write's started and outcome records */
    const person360 = (userId: string) => {
      const [started, outcome] = write('evidence');
      return [
        started,
        {
          phase: 'outcome',
          action: 'POST /api/v1/compliance/cases/:caseId/evidence',
          target_type: 'person',
          target_id: userId,
          outcome_status: 200,
        },
        outcome,
      ];
    };
    const read = (action: string, type: string, id: string | null) => [
      { phase: 'outcome', action: `GET /api/v1/compliance/${action}`, target_type: type, target_id: id, outcome_status: 200 },
    ];
    const write = (step: string) =>
      ['started', 'outcome'].map((phase) => ({
        phase,
        action: `POST /api/v1/compliance/cases/:caseId/${step}`,
        target_type: 'compliance-case',
        target_id: caseId,
        outcome_status: phase === 'started' ? null : 200,
      }));
    expect(rows).toEqual([
      ...read('alerts', 'person', payer.userId),
      ...read('alerts', 'person', null), // filtered on the case: the query, in details, says which
      ...read('alerts/:alertId', 'monitoring-alert', alertId),
      ...read('cases', 'person', payer.userId),
      ...read('cases/:caseId', 'compliance-case', caseId),
      ...write('assignment'),
      ...write('notes'),
      ...person360(payer.userId),
      ...person360(other.userId),
      ...write('decision'),
    ]);
    const [personRead] = (
      await h.sql.query(
        `SELECT details, request_id FROM orchestrator.staff_audit_trail WHERE actor_user_id = $1 AND seq > $2 AND target_id = $3`,
        [alice.userId, seq, other.userId],
      )
    ).rows;
    expect(personRead.details).toEqual({ params: { caseId }, read: 'PERSON_360' });
    expect(personRead.request_id).toBe(otherEvidence.headers['x-request-id']);
  });

  it('lists rules in force and rule failures; refuses bad filters with their codes', async () => {
    const rules = await call('GET', '/api/v1/compliance/monitoring/rules', alice.token);
    expect(rules.json()).toMatchObject({
      version: 1,
      rules: expect.arrayContaining([{ code: 'FAN_IN', enabled: true }]),
      document: { fanIn: { includeMerchants: false } },
    });
    expect((await call('GET', '/api/v1/compliance/monitoring/failures', alice.token)).json()).toEqual({ items: [], nextCursor: null });
    expect(code(await call('GET', '/api/v1/compliance/alerts?rule=NOPE', alice.token))).toBe('400 VALIDATION_ERROR');
    expect(code(await call('GET', '/api/v1/compliance/cases?cursor=zzz', alice.token))).toBe('400 VALIDATION_ERROR');
    expect(code(await call('GET', `/api/v1/compliance/cases/${randomUUID()}`, alice.token))).toBe('404 CASE_NOT_FOUND');
    expect(code(await call('GET', `/api/v1/compliance/alerts/${randomUUID()}`, alice.token))).toBe('404 ALERT_NOT_FOUND');
    expect(code(await call('GET', '/api/v1/compliance/alerts', support.token))).toBe('403 FORBIDDEN');
  });

  // last: it puts version 2 of the monitoring section in force
  it('monitoring rules: compliance officers propose changes too, and only a compliance officer approves one, never one person', async () => {
    const rules = (await call('GET', '/api/v1/compliance/monitoring/rules', alice.token)).json<{
      version: number;
      document: Record<string, any>;
    }>();
    const document = { ...rules.document, fanIn: { ...rules.document.fanIn, minDistinctPayers: 20 } };
    const change = { baseVersion: rules.version, reason: 'Fewer fan-in alerts on market days', document };
    expect(code(await call('POST', '/api/config/monitoring/versions', support.token, change))).toBe('403 FORBIDDEN');
    const proposed = await call('POST', '/api/config/monitoring/versions', alice.token, change);
    // this harness lists CONFIG_CHANGE in APPROVALS_ONE_PERSON_ACTIONS: a monitoring change waits all the same
    expect(proposed.statusCode).toBe(202);
    const requestId = proposed.json<{ id: string }>().id;
    const approve = (token: string) => call('POST', `/api/backoffice/approvals/${requestId}/approve`, token, { reason: 'Agreed' });
    expect(code(await approve(admin.token))).toBe('403 APPROVAL_COMPLIANCE_REQUIRED');
    expect(code(await approve(alice.token))).toBe('403 APPROVAL_SELF_DECISION');
    expect((await call('GET', '/api/v1/compliance/monitoring/rules', alice.token)).json()).toMatchObject({ version: rules.version });
    const approved = await approve(bruno.token);
    expect(code(approved)).toBe('200');
    expect(approved.json()).toMatchObject({ status: 'EXECUTED', maker: { userId: alice.userId }, result: { section: 'monitoring' } });
    expect((await call('GET', '/api/v1/compliance/monitoring/rules', alice.token)).json()).toMatchObject({
      version: rules.version + 1,
      createdBy: alice.userId,
      document: { fanIn: { minDistinctPayers: 20 } },
    });

    // an administrator's proposal waits for a compliance officer too
    const byAdmin = await call('POST', '/api/config/monitoring/versions', admin.token, {
      baseVersion: rules.version + 1,
      reason: 'Back to 15 payers',
      document: rules.document,
    });
    expect(byAdmin.statusCode).toBe(202);
    const adminRequest = byAdmin.json<{ id: string }>().id;
    expect(code(await call('POST', `/api/backoffice/approvals/${adminRequest}/approve`, admin.token, { reason: 'mine' }))).toBe(
      '403 APPROVAL_SELF_DECISION',
    );
    expect(code(await call('POST', `/api/backoffice/approvals/${adminRequest}/approve`, alice.token, { reason: 'Agreed' }))).toBe('200');
    // a compliance officer proposes monitoring changes only
    const inForce = (await call('GET', '/api/config/risk', admin.token)).json<{ version: number; document: unknown }>();
    const risk = await call('POST', '/api/backoffice/approvals', alice.token, {
      action: 'CONFIG_CHANGE',
      payload: { section: 'risk', baseVersion: inForce.version, reason: 'not mine to make', document: inForce.document },
      reason: 'not mine to make',
    });
    expect(code(risk)).toBe('403 FORBIDDEN');
    expect(risk.json<{ message: string }>().message).toContain('config.manage');
  });
});

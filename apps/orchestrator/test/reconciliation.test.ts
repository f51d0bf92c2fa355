import { businessDayBounds, businessDayOf } from '@mm/contracts';
import { ReconciliationSettings } from '../../ledger-wallets/src/reconciliation/trust-accounts';
import { type Answer, type Json, MoneyPlatform, newPhone } from '../../../test/e2e/money-platform';

const TRUST = 'CM2110005000010123456789012';
const R = '/api/v1/compliance/reconciliation';
const LEDGER = '/api/backoffice/ledger';
const APPROVALS = '/api/backoffice/approvals';
// the bank's day: West Africa Time
const today = businessDayOf(new Date());

const csv = (id: string, opening: number, closing: number, entries: [amount: number, remittance: string][]) =>
  [
    'statement_id,account,currency,record,booking_date,value_date,amount,direction,reference,remittance',
    `${id},${TRUST},XAF,OPENING,${today},,${opening},CREDIT,,`,
    ...entries.map(([amount, remittance], i) => `${id},${TRUST},XAF,ENTRY,${today},${today},${amount},CREDIT,BNK-${i + 1},${remittance}`),
    `${id},${TRUST},XAF,CLOSING,${today},,${closing},CREDIT,,`,
  ].join('\n');

/**
 * Float reconciliation through the gateway with real staff tokens: a compliance officer imports the
 * trust account's statement, runs it, and works the alerts; the fixing correction goes through the
 * maker-checker engine (administrator makes, officer approves). No service key anywhere.
 */
describe('compliance: float reconciliation through /api/v1/compliance/reconciliation', () => {
  const p = new MoneyPlatform();
  let admin: string;
  let officer: string;
  let support: string;

  async function staff(role: 'COMPLIANCE' | 'SUPPORT', firstName: string): Promise<string> {
    const phone = newPhone();
    const created = await p.call('POST', '/api/orchestrator/admin/staff', {
      token: admin,
      body: { phone, pin: '2580', firstName, lastName: 'Test', countryCode: 'CM', role },
    });
    if (created.status !== 201) throw new Error(`staff ${role} ${created.status} ${JSON.stringify(created.body)}`);
    return p.login(phone, '2580');
  }
  /** Submitted by the administrator, approved by the officer: the engine's result (correctionId, transactionId). */
  async function fourEyes(path: string, body: Json): Promise<{ correctionId: string; transactionId: string }> {
    const submitted = await p.call('POST', path, { token: admin, body });
    if (submitted.status !== 202) throw new Error(`submit ${submitted.status} ${JSON.stringify(submitted.body)}`);
    const approved = await p.call('POST', `${APPROVALS}/${submitted.body.id}/approve`, { token: officer, body: { reason: 'Checked' } });
    if (approved.body.status !== 'EXECUTED') throw new Error(`approve ${approved.status} ${JSON.stringify(approved.body)}`);
    return approved.body.result;
  }
  const as = (token: string, method: string, path: string, body?: Json): Promise<Answer> => p.call(method, path, { token, body });

  beforeAll(async () => {
    await p.start({
      orchestratorEnv: { APPROVALS_ONE_PERSON_ACTIONS: 'STAFF_CREATE' },
      ledgerEnv: { LEDGER_TRUST_ACCOUNTS: `XAF:${TRUST}` },
    });
    // a statement is imported once its day is over: the ledger's reconciliation clock is moved to the end of today
    p.ledger.app.get(ReconciliationSettings).now = () => new Date(businessDayBounds(today).to);
    admin = await p.adminToken();
    officer = await staff('COMPLIANCE', 'Clara');
    support = await staff('SUPPORT', 'Sam');
  }, 120_000);
  afterAll(() => p.stop());

  it('a float funding the bank never received: alert with evidence, acknowledged, resolved by a four-eyes reversal; a duplicate import changes nothing', async () => {
    const agent = await p.register('AGENT');
    const funding = await fourEyes(`${LEDGER}/agents/${agent.agentId}/float-fundings`, {
      amount: 300_000,
      currency: 'XAF',
      reason: 'Float agreed with the network manager',
    });
    const content = csv('STMT-E2E-1', 0, 0, []);
    const imported = await as(officer, 'POST', `${R}/statements`, { format: 'CSV', content });
    expect([imported.status, imported.body.statementRef, imported.body.currency]).toEqual([201, 'STMT-E2E-1', 'XAF']);

    const before = await as(officer, 'GET', `${R}/statements`);
    const duplicate = await as(officer, 'POST', `${R}/statements`, { format: 'CSV', content });
    expect([duplicate.status, duplicate.body.code]).toEqual([409, 'BANK_STATEMENT_DUPLICATE']);
    expect((await as(officer, 'GET', `${R}/statements`)).body).toEqual(before.body);

    const run = await as(officer, 'POST', `${R}/runs`, { statementId: imported.body.id });
    expect(run.status).toBe(201);
    expect(run.body).toMatchObject({ status: 'DIFFERENCES', bankClosing: 0, unmatchedLedgerCount: 1 });
    expect(run.body.circulation).toBeGreaterThanOrEqual(300_000);
    const alerts = await as(officer, 'GET', `${R}/alerts?runId=${run.body.id}&status=OPEN`);
    const missing = alerts.body.find((a: Json) => a.kind === 'UNMATCHED_LEDGER_MOVEMENT');
    expect(missing).toMatchObject({
      amount: 300_000,
      evidence: { movement: { transactionId: funding.transactionId, correctionId: funding.correctionId } },
    });

    const ack = await as(officer, 'POST', `${R}/alerts/${missing.id}/acknowledge`, { reason: 'Asked the agent for the slip' });
    expect([ack.status, ack.body.status]).toEqual([200, 'ACKNOWLEDGED']);
    // run again before fixing anything: the same differences, no second alert, each seen again
    const again = await as(officer, 'POST', `${R}/runs`, { statementId: imported.body.id });
    expect([again.status, again.body.alertIds]).toEqual([201, []]);
    expect([...again.body.seenAlertIds].sort()).toEqual([...run.body.alertIds].sort());
    const seen = await as(officer, 'GET', `${R}/alerts/${missing.id}`);
    expect(seen.body).toMatchObject({ status: 'ACKNOWLEDGED', seenByRunIds: [again.body.id], occurrence: 1 });
    const reversal = await fourEyes(`${LEDGER}/corrections`, {
      kind: 'REVERSAL',
      transactionId: funding.transactionId,
      reason: 'No money at the bank',
    });
    const resolved = await as(officer, 'POST', `${R}/alerts/${missing.id}/resolve`, {
      resolution: 'CORRECTION',
      correctionId: reversal.correctionId,
      reason: 'Funding reversed under four eyes',
    });
    expect([resolved.status, resolved.body.status]).toEqual([200, 'RESOLVED']);
    expect(resolved.body.decisions.map((d: Json) => d.decision)).toEqual(['ACKNOWLEDGED', 'CORRECTED']);
    // the staff audit trail has the officer's resolution, with its reason, as for every back-office write
    const trail = await as(officer, 'GET', `/api/backoffice/audit-trail?requestId=${resolved.headers.get('x-request-id')}`);
    expect(trail.body.items ?? trail.body).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          action: 'POST /api/v1/compliance/reconciliation/alerts/:alertId/resolve',
          actionName: 'reconciliation.resolve',
          target: { type: 'reconciliation-alert', id: missing.id },
          phase: 'outcome',
          outcome: { status: 200, code: null },
        }),
      ]),
    );

    const gap = alerts.body.find((a: Json) => a.kind === 'BALANCE_GAP');
    await as(officer, 'POST', `${R}/alerts/${gap.id}/acknowledge`, {});
    const accepted = await as(officer, 'POST', `${R}/alerts/${gap.id}/resolve`, {
      resolution: 'ACCEPTED',
      reason: 'Explained by the reversed funding',
    });
    expect([accepted.status, accepted.body.decisions[1].note]).toEqual([200, 'Explained by the reversed funding']);

    const report = await p.call('GET', `${R}/runs/${run.body.id}/report?format=csv`, { token: officer });
    expect(report.status).toBe(200);
    expect(report.headers.get('content-type')).toMatch(/^text\/csv/);
    const rows = (report.body as string).trim().split('\r\n');
    expect(rows[0]).toBe(
      'item,match_no,rule,side,direction,amount,currency,date,bank_line_no,bank_reference,bank_remittance,transaction_id,reference_id,correction_id',
    );
    expect(rows.some((r) => r.startsWith('UNMATCHED,,,LEDGER,CREDIT,300000,XAF,') && r.includes(funding.transactionId))).toBe(true);
    const json = await as(officer, 'GET', `${R}/runs/${run.body.id}/report`);
    expect(json.body.alerts.find((a: Json) => a.id === missing.id).status).toBe('RESOLVED');
  });

  it('only holders of compliance.reconciliation reach the routes; bad input is refused with its code', async () => {
    for (const [method, path, body] of [
      ['GET', `${R}/alerts`, undefined],
      ['POST', `${R}/statements`, { format: 'CSV', content: 'x' }],
    ] as const) {
      const refused = await as(support, method, path, body);
      expect([refused.status, refused.body.code]).toEqual([403, 'FORBIDDEN']);
    }
    const malformed = await as(officer, 'POST', `${R}/statements`, { format: 'CAMT053', content: '<Document><BkToCstmrStmt>' });
    expect([malformed.status, malformed.body.code]).toEqual([422, 'BANK_STATEMENT_MALFORMED']);
    const badId = await as(officer, 'GET', `${R}/runs/not-a-uuid`);
    expect([badId.status, badId.body.code]).toEqual([400, 'VALIDATION_ERROR']);
    const noCorrection = await as(officer, 'POST', `${R}/alerts/00000000-0000-4000-8000-000000000000/resolve`, {
      resolution: 'CORRECTION',
      reason: 'x y z',
    });
    expect([noCorrection.status, noCorrection.body.code]).toEqual([400, 'VALIDATION_ERROR']);
  });
});

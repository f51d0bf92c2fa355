import { randomUUID } from 'node:crypto';
import { addCalendarDays, businessDayBounds, businessDayOf } from '@mm/contracts';
import { TEST_CHECKER, TEST_MAKER, correctBalance } from '../../../test/support/funding';
import { ReconciliationSettings } from '../src/reconciliation/trust-accounts';
import type { ResponseBody } from './ledger-harness';
import { type OperatorLedger, SUPPORT, startOperatorLedger } from './operators';

const XAF_TRUST = 'CM2110005000010123456789012';
const XOF_TRUST = 'SN08SN0100152000048500003035';
// a second XOF account whose bank books in UTC+00:00 (Senegal), configured with its offset
const XOF_UTC = 'SN08SN0100152000048500009999';
const R = '/v1/internal/reconciliation';
// Statement dates are business days in West Africa Time, as the bank books them.
const today = businessDayOf(new Date());
const tomorrow = addCalendarDays(today, 1);
const afterTomorrow = addCalendarDays(today, 2);
// Statements close on days that are over: the reconciliation's clock is moved past the last day these tests use.
const later = new Date(businessDayBounds(addCalendarDays(today, 3)).to);

interface Entry {
  amount: number;
  direction: 'CRDT' | 'DBIT';
  date: string;
  remittance?: string;
}

/** A camt.053 of one statement, as a bank would send it. */
function camt(o: {
  id: string;
  account?: string;
  ccy?: string;
  opening: number;
  openingDate: string;
  closing: number;
  closingDate: string;
  entries: Entry[];
}): string {
  const ccy = o.ccy ?? 'XAF';
  const bal = (code: string, amount: number, date: string) =>
    `<Bal><Tp><CdOrPrtry><Cd>${code}</Cd></CdOrPrtry></Tp><Amt Ccy="${ccy}">${amount}</Amt><CdtDbtInd>CRDT</CdtDbtInd><Dt><Dt>${date}</Dt></Dt></Bal>`;
  const entries = o.entries
    .map(
      (e, i) =>
        `<Ntry><NtryRef>BNK${i + 1}</NtryRef><Amt Ccy="${ccy}">${e.amount}</Amt><CdtDbtInd>${e.direction}</CdtDbtInd><Sts><Cd>BOOK</Cd></Sts>` +
        `<BookgDt><Dt>${e.date}</Dt></BookgDt>${e.remittance ? `<NtryDtls><TxDtls><RmtInf><Ustrd>${e.remittance}</Ustrd></RmtInf></TxDtls></NtryDtls>` : ''}</Ntry>`,
    )
    .join('');
  return (
    `<?xml version="1.0" encoding="UTF-8"?><Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.08"><BkToCstmrStmt><Stmt>` +
    `<Id>${o.id}</Id><Acct><Id><IBAN>${o.account ?? XAF_TRUST}</IBAN></Id><Ccy>${ccy}</Ccy></Acct>` +
    `${bal('OPBD', o.opening, o.openingDate)}${bal('CLBD', o.closing, o.closingDate)}${entries}</Stmt></BkToCstmrStmt></Document>`
  );
}

describe('ledger: float reconciliation against the trust bank account', () => {
  let t: OperatorLedger;
  let officer: Record<string, string>;
  let settings: ReconciliationSettings;

  const call = (method: string, path: string, body?: unknown, as = officer) => t.h.call(method, path, body, as);
  const counts = async () =>
    (
      await t.h.admin.query<{ s: string; l: string; r: string }>(
        `SELECT (SELECT count(*) FROM ledger.bank_statements) AS s, (SELECT count(*) FROM ledger.bank_statement_lines) AS l,
                (SELECT count(*) FROM ledger.reconciliation_runs) AS r`,
      )
    ).rows[0];
  /** An agent wallet in `currency`, its account funded through a four-eyes correction; the correction and its transaction's reference. */
  async function floatFunding(amount: number, currency = 'XAF') {
    const wallet = await t.h.call('POST', '/v1/internal/wallets', { ownerType: 'AGENT', ownerId: randomUUID(), currencies: [currency] });
    const account = wallet.body.accounts.find((a: ResponseBody) => a.accountType === 'agent').id as string;
    const correction = await correctBalance(t.h.call, t.operators, account, amount);
    const tx = await t.h.admin.query<{ reference_id: string }>(`SELECT reference_id FROM ledger.transactions WHERE id = $1`, [
      correction.transactionId,
    ]);
    return {
      account,
      correctionId: correction.id as string,
      transactionId: correction.transactionId as string,
      referenceId: tx.rows[0].reference_id,
    };
  }
  const importCamt = (content: string, as = officer) => call('POST', `${R}/statements`, { format: 'CAMT053', content }, as);

  beforeAll(async () => {
    t = await startOperatorLedger({
      env: { LEDGER_TRUST_ACCOUNTS: `XAF:${XAF_TRUST},XOF:${XOF_TRUST},XOF:${XOF_UTC}@+00:00`, RECON_DATE_TOLERANCE_DAYS: '2' },
    });
    officer = await t.as(TEST_CHECKER);
    settings = t.h.app.app.get(ReconciliationSettings);
    settings.now = () => later;
  }, 60_000);
  afterAll(() => t.close());

  let f1: Awaited<ReturnType<typeof floatFunding>>;
  let second: ResponseBody;

  it('a statement that matches fully: the float funding paired by its reference, the closing balance equal to the circulation', async () => {
    f1 = await floatFunding(500_000);
    const imported = await importCamt(
      camt({
        id: 'XAF-1',
        opening: 0,
        openingDate: today,
        closing: 500_000,
        closingDate: today,
        entries: [{ amount: 500_000, direction: 'CRDT', date: today, remittance: `Float ${f1.referenceId}` }],
      }),
    );
    expect(imported.status).toBe(201);
    expect(imported.body).toMatchObject({
      account: XAF_TRUST,
      currency: 'XAF',
      statementRef: 'XAF-1',
      lineCount: 1,
      importedBy: TEST_CHECKER.id,
    });

    const run = await call('POST', `${R}/runs`, { statementId: imported.body.id });
    expect(run.status).toBe(201);
    expect(run.body).toMatchObject({
      status: 'BALANCED',
      bankClosing: 500_000,
      circulation: 500_000,
      difference: 0,
      matchedCount: 1,
      alertIds: [],
      seenAlertIds: [],
    });
    expect(run.body.circulationDetail.platformAccounts.suspense).toBe(-500_000);
    // the circulation is taken at the end of the closing day in West Africa Time: 23:00 UTC
    expect(run.body.circulationDetail.cutoff).toBe(businessDayBounds(today).to);
    expect(run.body.circulationDetail.cutoff).toBe(`${today}T23:00:00.000Z`);
    const report = await call('GET', `${R}/runs/${run.body.id}/report`);
    expect(report.body.matches).toEqual([
      expect.objectContaining({
        rule: 'REFERENCE',
        movements: [expect.objectContaining({ transactionId: f1.transactionId, direction: 'CREDIT', amount: 500_000 })],
      }),
    ]);
  });

  it('a missing movement and an extra bank line: alerts with their evidence, and the gap', async () => {
    const f2 = await floatFunding(200_000); // the bank never received it
    second = await importCamt(
      camt({
        id: 'XAF-2',
        opening: 500_000,
        openingDate: today,
        closing: 575_000,
        closingDate: tomorrow,
        entries: [{ amount: 75_000, direction: 'CRDT', date: tomorrow, remittance: 'Unknown deposit' }],
      }),
    );
    expect(second.status).toBe(201);
    const run = await call('POST', `${R}/runs`, { statementId: second.body.id });
    expect(run.body).toMatchObject({
      status: 'DIFFERENCES',
      bankClosing: 575_000,
      circulation: 700_000,
      difference: -125_000,
      unmatchedBankCount: 1,
      unmatchedLedgerCount: 1,
    });
    const alerts = await call('GET', `${R}/alerts?runId=${run.body.id}`);
    const byKind = Object.fromEntries(alerts.body.map((a: ResponseBody) => [a.kind, a]));
    expect(Object.keys(byKind).sort()).toEqual(['BALANCE_GAP', 'UNMATCHED_BANK_LINE', 'UNMATCHED_LEDGER_MOVEMENT']);
    expect(byKind.BALANCE_GAP).toMatchObject({
      amount: -125_000,
      status: 'OPEN',
      evidence: { bankClosing: 575_000, circulation: 700_000, statementRef: 'XAF-2' },
    });
    expect(byKind.UNMATCHED_BANK_LINE.evidence.line).toMatchObject({ amount: 75_000, direction: 'CREDIT', remittance: 'Unknown deposit' });
    expect(byKind.UNMATCHED_LEDGER_MOVEMENT.evidence.movement).toMatchObject({
      transactionId: f2.transactionId,
      amount: 200_000,
      correctionId: f2.correctionId,
    });

    // f1, paired by the first statement's run, is not that statement's to explain again
    const report = await call('GET', `${R}/runs/${run.body.id}/report`);
    expect(report.body.unmatchedMovements.map((m: ResponseBody) => m.transactionId)).toEqual([f2.transactionId]);

    // acknowledged, then resolved by reversing the funding through four eyes
    const movementAlert = byKind.UNMATCHED_LEDGER_MOVEMENT.id;
    const early = await call('POST', `${R}/alerts/${movementAlert}/resolve`, { resolution: 'ACCEPTED', reason: 'too early' });
    expect([early.status, early.body.code]).toEqual([409, 'RECONCILIATION_ALERT_NOT_ACKNOWLEDGED']);
    const ack = await call('POST', `${R}/alerts/${movementAlert}/acknowledge`, { reason: 'Asking the agent for the deposit slip' });
    expect([ack.status, ack.body.status]).toEqual([200, 'ACKNOWLEDGED']);
    const twice = await call('POST', `${R}/alerts/${movementAlert}/acknowledge`, {});
    expect([twice.status, twice.body.code]).toEqual([409, 'RECONCILIATION_ALERT_ALREADY_ACKNOWLEDGED']);

    const pending = await t.h.call(
      'POST',
      '/v1/internal/corrections',
      { kind: 'REVERSAL', idempotencyKey: randomUUID(), transactionId: f2.transactionId, reason: 'No money received at the bank' },
      await t.as(TEST_MAKER),
    );
    expect(pending.status).toBe(201);
    const notYet = await call('POST', `${R}/alerts/${movementAlert}/resolve`, {
      resolution: 'CORRECTION',
      correctionId: pending.body.id,
      reason: 'Reversed',
    });
    expect([notYet.status, notYet.body.code]).toEqual([422, 'RECONCILIATION_CORRECTION_NOT_ELIGIBLE']);
    const approved = await t.h.call('POST', `/v1/internal/corrections/${pending.body.id}/approve`, { reason: 'checked' }, officer);
    expect(approved.status).toBe(200);
    const resolved = await call('POST', `${R}/alerts/${movementAlert}/resolve`, {
      resolution: 'CORRECTION',
      correctionId: pending.body.id,
      reason: 'Reversed',
    });
    expect(resolved.status).toBe(200);
    expect(resolved.body).toMatchObject({ status: 'RESOLVED' });
    expect(resolved.body.decisions.map((d: ResponseBody) => [d.decision, d.correctionId, d.decidedBy])).toEqual([
      ['ACKNOWLEDGED', null, TEST_CHECKER.id],
      ['CORRECTED', pending.body.id, TEST_CHECKER.id],
    ]);

    // the same correction cannot close another alert; the bank line is accepted with a note
    const lineAlert = byKind.UNMATCHED_BANK_LINE.id;
    await call('POST', `${R}/alerts/${lineAlert}/acknowledge`, {});
    const reused = await call('POST', `${R}/alerts/${lineAlert}/resolve`, {
      resolution: 'CORRECTION',
      correctionId: pending.body.id,
      reason: 'again',
    });
    expect([reused.status, reused.body.code]).toEqual([409, 'RECONCILIATION_CORRECTION_ALREADY_USED']);
    const noNote = await call('POST', `${R}/alerts/${lineAlert}/resolve`, { resolution: 'ACCEPTED' });
    expect([noNote.status, noNote.body.code]).toEqual([400, 'VALIDATION_ERROR']);
    const accepted = await call('POST', `${R}/alerts/${lineAlert}/resolve`, {
      resolution: 'ACCEPTED',
      reason: 'Fee sweep returned by the bank',
    });
    expect([accepted.status, accepted.body.status, accepted.body.decisions[1].note]).toEqual([
      200,
      'RESOLVED',
      'Fee sweep returned by the bank',
    ]);
    const again = await call('POST', `${R}/alerts/${lineAlert}/resolve`, { resolution: 'ACCEPTED', reason: 'again' });
    expect([again.status, again.body.code]).toEqual([409, 'RECONCILIATION_ALERT_ALREADY_RESOLVED']);

    // a second run of the statement: the funding and its reversal cancel out, the gap is now the extra deposit
    const rerun = await call('POST', `${R}/runs`, { statementId: second.body.id });
    expect(rerun.body).toMatchObject({ circulation: 500_000, difference: 75_000, unmatchedLedgerCount: 0, unmatchedBankCount: 1 });
    // a new gap amount is a new difference; the bank line was accepted, and an accepted difference stays accepted: seen
    // again, not reopened; the first gap alert (-125000) is not this run's difference and is not seen again
    const rerunAlerts = await call('GET', `${R}/alerts?runId=${rerun.body.id}`);
    expect(rerunAlerts.body.map((a: ResponseBody) => [a.kind, a.evidenceKey, a.occurrence, a.runId === rerun.body.id]).sort()).toEqual([
      ['BALANCE_GAP', 'gap:75000', 1, true],
      ['UNMATCHED_BANK_LINE', 'line:1', 1, false],
    ]);
    expect(rerun.body.seenAlertIds).toEqual([lineAlert]);
    const rerunReport = await call('GET', `${R}/runs/${rerun.body.id}/report`);
    expect(rerunReport.body.matches.map((m: ResponseBody) => m.rule)).toEqual(['REVERSED']);

    // the decisions are history: the database refuses to rewrite them
    await expect(t.h.admin.query(`UPDATE ledger.reconciliation_alert_decisions SET note = 'x'`)).rejects.toThrow(/append-only/);
    await expect(t.h.admin.query(`DELETE FROM ledger.reconciliation_alerts`)).rejects.toThrow(/append-only/);
    const resolvedOnly = await call('GET', `${R}/alerts?status=RESOLVED`);
    expect(resolvedOnly.body.map((a: ResponseBody) => a.id).sort()).toEqual([movementAlert, lineAlert].sort());

    // the -125000 shortfall is fixed only by a correction made for it: not the earlier 500000 funding, not a later
    // unrelated 500, not an issuance of 125000 (the wrong way); a redemption of 125000 submitted after the alert is
    const gapAlert = byKind.BALANCE_GAP.id;
    await call('POST', `${R}/alerts/${gapAlert}/acknowledge`, {});
    const resolveWith = (correctionId: string) =>
      call('POST', `${R}/alerts/${gapAlert}/resolve`, { resolution: 'CORRECTION', correctionId, reason: 'Fixed' });
    const earlierOne = await resolveWith(f1.correctionId);
    expect([earlierOne.status, earlierOne.body.code]).toEqual([422, 'RECONCILIATION_CORRECTION_PREDATES_ALERT']);
    const small = await floatFunding(500);
    const unrelated = await resolveWith(small.correctionId);
    expect([unrelated.status, unrelated.body.code]).toEqual([422, 'RECONCILIATION_CORRECTION_MISMATCH']);
    expect(unrelated.body.message).toMatch(/moves a CREDIT of 500 on the trust account; this alert calls for a DEBIT of 125000/);
    const wrongWay = await correctBalance(t.h.call, t.operators, f1.account, 125_000, 'CREDIT');
    expect((await resolveWith(wrongWay.id)).body.code).toBe('RECONCILIATION_CORRECTION_MISMATCH');
    // whoever writes the decision, the database refuses the same
    const rawDecision = (correctionId: string) =>
      t.h.admin.query(
        `INSERT INTO ledger.reconciliation_alert_decisions (alert_id, decision, correction_id, note, decided_by, decided_roles)
         VALUES ($1, 'CORRECTED', $2, 'raw', 'someone', '{COMPLIANCE}')`,
        [gapAlert, correctionId],
      );
    await expect(rawDecision(small.correctionId)).rejects.toThrow(/alert .* calls for -125000/);
    await expect(rawDecision(f1.correctionId)).rejects.toThrow(/submitted before alert/);
    const redemption = await correctBalance(t.h.call, t.operators, f1.account, 125_000, 'DEBIT');
    const fixed = await resolveWith(redemption.id);
    expect([fixed.status, fixed.body.status, fixed.body.decisions[1].correctionId]).toEqual([200, 'RESOLVED', redemption.id]);
  });

  it('refuses a duplicate, an out-of-order, a wrong-currency, an unknown-account and a malformed statement, writing nothing', async () => {
    const before = await counts();
    const same = await importCamt(
      camt({
        id: 'XAF-2',
        opening: 500_000,
        openingDate: today,
        closing: 575_000,
        closingDate: tomorrow,
        entries: [{ amount: 75_000, direction: 'CRDT', date: tomorrow, remittance: 'Unknown deposit' }],
      }),
    );
    expect([same.status, same.body.code]).toEqual([409, 'BANK_STATEMENT_DUPLICATE']);
    const [a, b] = await Promise.all(
      [0, 1].map(() =>
        importCamt(camt({ id: 'XAF-2', opening: 575_000, openingDate: tomorrow, closing: 575_000, closingDate: tomorrow, entries: [] })),
      ),
    );
    expect([a.body.code, b.body.code]).toEqual(['BANK_STATEMENT_DUPLICATE', 'BANK_STATEMENT_DUPLICATE']);

    const wrongOpening = await importCamt(
      camt({
        id: 'XAF-3',
        opening: 1,
        openingDate: tomorrow,
        closing: 1,
        closingDate: afterTomorrow,
        entries: [],
      }),
    );
    expect([wrongOpening.status, wrongOpening.body.code]).toEqual([409, 'BANK_STATEMENT_OUT_OF_ORDER']);
    const earlier = await importCamt(
      camt({ id: 'XAF-0', opening: 575_000, openingDate: today, closing: 575_000, closingDate: today, entries: [] }),
    );
    expect([earlier.status, earlier.body.code]).toEqual([409, 'BANK_STATEMENT_OUT_OF_ORDER']);

    const xofOnXaf = await importCamt(
      camt({ id: 'XAF-9', ccy: 'XOF', opening: 575_000, openingDate: tomorrow, closing: 575_000, closingDate: tomorrow, entries: [] }),
    );
    expect([xofOnXaf.status, xofOnXaf.body.code]).toEqual([422, 'BANK_STATEMENT_WRONG_CURRENCY']);
    const stranger = await importCamt(
      camt({
        id: 'Z-1',
        account: 'CM2199999999999999999999999',
        opening: 0,
        openingDate: today,
        closing: 0,
        closingDate: today,
        entries: [],
      }),
    );
    expect([stranger.status, stranger.body.code]).toEqual([422, 'BANK_ACCOUNT_NOT_TRUST_ACCOUNT']);
    const broken = await importCamt('<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.08"><BkToCstmrStmt><Stmt>');
    expect([broken.status, broken.body.code]).toEqual([422, 'BANK_STATEMENT_MALFORMED']);
    const badFormat = await call('POST', `${R}/statements`, { format: 'MT940', content: 'x' });
    expect([badFormat.status, badFormat.body.code]).toEqual([400, 'VALIDATION_ERROR']);

    // a day not over yet in West Africa Time: the next statement in order, but dated in the future by mistake, then
    // (with the real clock) closing today; neither is imported, so the account still takes its real next statement
    const nextInOrder = (id: string, closingDate: string) =>
      importCamt(camt({ id, opening: 575_000, openingDate: tomorrow, closing: 575_000, closingDate, entries: [] }));
    const future = await nextInOrder('XAF-2027', addCalendarDays(today, 400));
    expect([future.status, future.body.code]).toEqual([422, 'BANK_STATEMENT_DAY_NOT_OVER']);
    settings.now = () => new Date();
    try {
      const open = await importCamt(
        camt({
          id: 'XOF-TODAY',
          account: XOF_TRUST,
          ccy: 'XOF',
          opening: 0,
          openingDate: today,
          closing: 0,
          closingDate: today,
          entries: [],
        }),
      );
      expect([open.status, open.body.code]).toEqual([422, 'BANK_STATEMENT_DAY_NOT_OVER']);
      // a statement imported earlier whose closing day (tomorrow) has not ended yet: no run either
      const early = await call('POST', `${R}/runs`, { statementId: second.body.id });
      expect([early.status, early.body.code]).toEqual([409, 'RECONCILIATION_DAY_NOT_OVER']);
    } finally {
      settings.now = () => later;
    }

    expect(await counts()).toEqual(before);
  });

  it('grouped and dated matches in XOF; only compliance and administrators may act, and every step names its officer', async () => {
    const a = await floatFunding(100_000, 'XOF');
    await floatFunding(50_000, 'XOF');
    const imported = await importCamt(
      camt({
        id: 'XOF-1',
        account: XOF_TRUST,
        ccy: 'XOF',
        opening: 0,
        openingDate: today,
        closing: 150_000,
        closingDate: today,
        entries: [{ amount: 150_000, direction: 'CRDT', date: today, remittance: 'Versements agents' }],
      }),
    );
    const run = await call('POST', `${R}/runs`, { statementId: imported.body.id });
    expect(run.body).toMatchObject({ status: 'BALANCED', circulation: 150_000, matchedCount: 1 });
    const report = await call('GET', `${R}/runs/${run.body.id}/report`);
    expect(report.body.matches[0].rule).toBe('GROUPED_LEDGER');
    expect(report.body.matches[0].movements.map((m: ResponseBody) => m.transactionId)).toContain(a.transactionId);

    const support = await t.as(SUPPORT);
    for (const [method, path, body] of [
      ['GET', `${R}/alerts`, undefined],
      ['POST', `${R}/runs`, { statementId: imported.body.id }],
      ['POST', `${R}/statements`, { format: 'CSV', content: 'x' }],
    ] as const) {
      const refused = await call(method, path, body, support);
      expect([refused.status, refused.body.code]).toEqual([403, 'OPERATOR_ROLE_REQUIRED']);
    }
    const anonymous = await t.h.call('GET', `${R}/runs`);
    expect([anonymous.status, anonymous.body.code]).toEqual([401, 'OPERATOR_TOKEN_REQUIRED']);
    const runs = await t.h.admin.query<{ run_by: string }>(`SELECT DISTINCT run_by FROM ledger.reconciliation_runs`);
    expect(runs.rows).toEqual([{ run_by: TEST_CHECKER.id }]);
    const missing = await call('GET', `${R}/runs/${randomUUID()}`);
    expect([missing.status, missing.body.code]).toEqual([404, 'RECONCILIATION_RUN_NOT_FOUND']);
  });

  it('a run again finds the differences still alerted and opens nothing for them; a new or resolved-then-found difference gets an alert', async () => {
    const missing = await floatFunding(20_000, 'XOF'); // never reached the bank
    const statement = await importCamt(
      camt({
        id: 'XOF-2',
        account: XOF_TRUST,
        ccy: 'XOF',
        opening: 150_000,
        openingDate: today,
        closing: 180_000,
        closingDate: tomorrow,
        entries: [{ amount: 30_000, direction: 'CRDT', date: tomorrow, remittance: 'Unknown deposit' }],
      }),
    );
    expect(statement.status).toBe(201);
    const runOf = async () => {
      const r = await call('POST', `${R}/runs`, { statementId: statement.body.id });
      expect(r.status).toBe(201);
      return r.body;
    };
    const keysOf = async (ids: string[]) =>
      Promise.all(ids.map(async (id) => (await call('GET', `${R}/alerts/${id}`)).body)).then((alerts) =>
        alerts.map((a: ResponseBody) => `${a.kind} ${a.evidenceKey} #${a.occurrence}`).sort(),
      );

    const first = await runOf();
    expect(first).toMatchObject({ status: 'DIFFERENCES', difference: 10_000, seenAlertIds: [] });
    expect(await keysOf(first.alertIds)).toEqual([
      'BALANCE_GAP gap:10000 #1',
      'UNMATCHED_BANK_LINE line:1 #1',
      `UNMATCHED_LEDGER_MOVEMENT movement:${missing.transactionId} #1`,
    ]);

    // nothing changed: the same three differences, no new alert, each seen again
    const second = await runOf();
    expect(second).toMatchObject({ status: 'DIFFERENCES', difference: 10_000, alertIds: [] });
    expect([...second.seenAlertIds].sort()).toEqual([...first.alertIds].sort());
    const seen = await call('GET', `${R}/alerts?runId=${second.id}`);
    expect(seen.body.map((a: ResponseBody) => [a.runId, a.seenByRunIds])).toEqual(first.alertIds.map(() => [first.id, [second.id]]));
    const report = await call('GET', `${R}/runs/${second.id}/report`);
    expect(report.body.alerts.map((a: ResponseBody) => a.id).sort()).toEqual([...first.alertIds].sort());

    // acknowledged is not resolved: still seen again; the bank line accepted, then found again: seen again, not reopened
    const alerts = Object.fromEntries(seen.body.map((a: ResponseBody) => [a.kind, a]));
    await call('POST', `${R}/alerts/${alerts.UNMATCHED_LEDGER_MOVEMENT.id}/acknowledge`, { reason: 'Asked the agent' });
    await call('POST', `${R}/alerts/${alerts.UNMATCHED_BANK_LINE.id}/acknowledge`, {});
    const accepted = await call('POST', `${R}/alerts/${alerts.UNMATCHED_BANK_LINE.id}/resolve`, {
      resolution: 'ACCEPTED',
      reason: 'Known deposit',
    });
    expect(accepted.body.status).toBe('RESOLVED');
    const another = await floatFunding(5_000, 'XOF'); // the gap becomes 5000: a new difference
    const third = await runOf();
    expect(third.difference).toBe(5_000);
    expect(await keysOf(third.alertIds)).toEqual([
      'BALANCE_GAP gap:5000 #1',
      `UNMATCHED_LEDGER_MOVEMENT movement:${another.transactionId} #1`,
    ]);
    expect([...third.seenAlertIds].sort()).toEqual([alerts.UNMATCHED_LEDGER_MOVEMENT.id, alerts.UNMATCHED_BANK_LINE.id].sort());

    // two runs at once after a new difference: one alerts it, the other sees that alert; neither fails
    const third2 = await floatFunding(1_000, 'XOF');
    const [a, b] = await Promise.all([runOf(), runOf()]);
    const opened = [...a.alertIds, ...b.alertIds];
    expect(await keysOf(opened)).toEqual(['BALANCE_GAP gap:4000 #1', `UNMATCHED_LEDGER_MOVEMENT movement:${third2.transactionId} #1`]);
    const later = a.alertIds.length > 0 ? b : a;
    expect(later.alertIds).toEqual([]);
    expect(later.seenAlertIds).toEqual(expect.arrayContaining(opened));

    // the database keeps one unresolved alert per difference, and every alert has its key, whoever writes
    const keys = await t.h.admin.query<{ n: string }>(
      `SELECT count(*) AS n FROM ledger.reconciliation_alert_keys WHERE statement_id = $1 AND evidence_key = $2`,
      [statement.body.id, `movement:${missing.transactionId}`],
    );
    expect(keys.rows).toEqual([{ n: '1' }]);
    const secondAlert = `DO $$ DECLARE id uuid := gen_random_uuid(); BEGIN
        INSERT INTO ledger.reconciliation_alerts (id, run_id, kind, currency, amount, evidence)
             VALUES (id, '${later.id}', 'UNMATCHED_LEDGER_MOVEMENT', 'XOF', 20000, '{}');
        INSERT INTO ledger.reconciliation_alert_keys (alert_id, statement_id, kind, evidence_key, occurrence)
             VALUES (id, '${statement.body.id}', 'UNMATCHED_LEDGER_MOVEMENT', 'movement:${missing.transactionId}', %s);
      END $$`;
    for (const occurrence of ['1', '2']) {
      await expect(t.h.admin.query(secondAlert.replace('%s', occurrence))).rejects.toThrow(/already has an alert that is not resolved/);
    }
    await expect(
      t.h.admin.query(
        `INSERT INTO ledger.reconciliation_alerts (run_id, kind, currency, amount, evidence) VALUES ($1, 'BALANCE_GAP', 'XOF', 1, '{}')`,
        [later.id],
      ),
    ).rejects.toThrow(/has no difference key/);
    await expect(t.h.admin.query(`UPDATE ledger.reconciliation_alert_keys SET occurrence = 9`)).rejects.toThrow(/append-only/);
    await expect(t.h.admin.query(`DELETE FROM ledger.reconciliation_alert_sightings`)).rejects.toThrow(/append-only/);
  });

  it('a deposit the agent was never credited for: the funding made for it resolves the line, and the line then matches it; an accepted gap carries to the next day', async () => {
    const day3 = addCalendarDays(today, 3);
    const statement = await importCamt(
      camt({
        id: 'XAF-3',
        opening: 575_000,
        openingDate: afterTomorrow,
        closing: 585_000,
        closingDate: afterTomorrow,
        entries: [{ amount: 10_000, direction: 'CRDT', date: afterTomorrow, remittance: 'Cash deposit agent' }],
      }),
    );
    expect(statement.status).toBe(201);
    const first = await call('POST', `${R}/runs`, { statementId: statement.body.id });
    const firstAlerts = (await call('GET', `${R}/alerts?runId=${first.body.id}`)).body as ResponseBody[];
    const lineAlert = firstAlerts.find((a) => a.kind === 'UNMATCHED_BANK_LINE')!;
    expect(lineAlert).toMatchObject({ evidenceKey: 'line:1', amount: 10_000 });
    await call('POST', `${R}/alerts/${lineAlert.id}/acknowledge`, { reason: 'Which agent paid this in?' });
    const funding = await floatFunding(10_000);
    const resolved = await call('POST', `${R}/alerts/${lineAlert.id}/resolve`, {
      resolution: 'CORRECTION',
      correctionId: funding.correctionId,
      reason: 'Agent credited for his deposit',
    });
    expect([resolved.status, resolved.body.status]).toEqual([200, 'RESOLVED']);

    // run again: the line is matched by the correction made for it, and no alert about it opens
    const again = await call('POST', `${R}/runs`, { statementId: statement.body.id });
    expect(again.body.unmatchedBankCount).toBe(0);
    const report = await call('GET', `${R}/runs/${again.body.id}/report`);
    expect(
      report.body.matches
        .filter((m: ResponseBody) => m.rule === 'CORRECTED')
        .map((m: ResponseBody) => [m.bankLines.map((l: ResponseBody) => l.lineNo), m.movements.map((x: ResponseBody) => x.transactionId)]),
    ).toEqual([[[1], [funding.transactionId]]]);
    expect(report.body.resolutionCorrections.map((m: ResponseBody) => m.transactionId)).not.toContain(funding.transactionId);
    const opened = await Promise.all(again.body.alertIds.map(async (id: string) => (await call('GET', `${R}/alerts/${id}`)).body.kind));
    expect(opened).not.toContain('UNMATCHED_BANK_LINE');

    // the gap that is left is accepted; the next day's statement has the same gap: the accepted alert is seen again
    const gap = (await call('GET', `${R}/alerts?runId=${again.body.id}`)).body.find((a: ResponseBody) => a.kind === 'BALANCE_GAP');
    expect(gap).toBeDefined();
    if (gap.status === 'OPEN') await call('POST', `${R}/alerts/${gap.id}/acknowledge`, {});
    const accepted = await call('POST', `${R}/alerts/${gap.id}/resolve`, { resolution: 'ACCEPTED', reason: 'Test fundings of the day' });
    expect(accepted.body.status).toBe('RESOLVED');
    const next = await importCamt(
      camt({ id: 'XAF-4', opening: 585_000, openingDate: day3, closing: 585_000, closingDate: day3, entries: [] }),
    );
    const nextRun = await call('POST', `${R}/runs`, { statementId: next.body.id });
    expect(nextRun.body.difference).toBe(again.body.difference);
    expect([nextRun.body.alertIds, nextRun.body.seenAlertIds]).toEqual([[], [gap.id]]);
  });

  it("a trust account configured with its bank's offset (+00:00) is read in its own days: dates, the day's end and the cutoff", async () => {
    const day = addCalendarDays(today, 5);
    const next = addCalendarDays(day, 1);
    // 23:30 UTC: the day is over in West Africa Time, not yet in UTC+00:00
    const content = camt({
      id: 'XOF-UTC-1',
      account: XOF_UTC,
      ccy: 'XOF',
      opening: 0,
      openingDate: day,
      closing: 7_000,
      closingDate: day,
      entries: [{ amount: 7_000, direction: 'CRDT', date: day }],
    }).replace(`<BookgDt><Dt>${day}</Dt></BookgDt>`, `<BookgDt><DtTm>${day}T23:30:00Z</DtTm></BookgDt>`);
    settings.now = () => new Date(`${day}T23:30:00Z`);
    try {
      const early = await importCamt(content);
      expect([early.status, early.body.code]).toEqual([422, 'BANK_STATEMENT_DAY_NOT_OVER']);
      expect(early.body.message).toContain(`${next}T00:00:00.000Z`);
      settings.now = () => new Date(`${next}T00:30:00Z`);
      // booked at 23:30 UTC: that is still `day` for this bank (it would be the next day in West Africa Time)
      const imported = await importCamt(content);
      expect([imported.status, imported.body.utcOffset, imported.body.closingDate]).toEqual([201, '+00:00', day]);
      const run = await call('POST', `${R}/runs`, { statementId: imported.body.id });
      expect([run.status, run.body.circulationDetail.cutoff]).toEqual([201, `${next}T00:00:00.000Z`]);
    } finally {
      settings.now = () => later;
    }
  });
});

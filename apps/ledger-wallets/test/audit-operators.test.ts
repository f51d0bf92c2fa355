import { randomUUID } from 'node:crypto';
import { IntegrityCheckService } from '../src/integrity/integrity-check.service';
import { TEST_CHECKER, TEST_MAKER, bearer } from '../../../test/support/funding';
import { callerKey } from '../../../test/support/test-env';
import { openApiOf, undocumented } from '../../../test/support/openapi-departures';
import { fundedAccount } from './ledger-harness';
import { SUPPORT, useOperatorLedger } from './operators';

const COMPLIANCE = TEST_CHECKER; // roles ['COMPLIANCE']
const ADMIN = TEST_MAKER; // roles ['ADMIN']

/**
 * Audits and integrity checks are an operator's acts, proven by the operator's access token like
 * corrections: refused without one or with a role other than COMPLIANCE / ADMIN, open to the
 * operators' tooling and to the orchestrator, and recorded under the operator in append-only
 * tables. The integrity check counts every gap (the list stays bounded) and its alert, tried once in
 * the request, is sent again in the background.
 */
describe('ledger: audits and integrity checks are recorded under the operator who asked', () => {
  /** status the compliance receiver answers, one per delivery (then 204) */
  let answers: number[] = [];
  let deliveries = 0;
  const t = useOperatorLedger({
    onAlert: () => {
      deliveries++;
      return answers.shift() ?? 204;
    },
  });

  it.each([
    ['GET', 'audit'],
    ['POST', '/v1/internal/integrity-checks'],
    ['GET', '/v1/internal/integrity-checks'],
  ])('%s %s: 401 OPERATOR_TOKEN_REQUIRED without a token, 403 OPERATOR_ROLE_REQUIRED for a support operator', async (method, route) => {
    const path = route === 'audit' ? `/v1/internal/accounts/${await fundedAccount(t.h, 10)}/audit` : route;
    const doc = await openApiOf(t.h.app.app);
    const documented = path.includes('/audit') ? '/v1/internal/accounts/{id}/audit' : route;
    const none = await t.h.call(method, path);
    expect([none.status, none.body.code]).toEqual([401, 'OPERATOR_TOKEN_REQUIRED']);
    const expired = await t.h.call(method, path, undefined, bearer(await t.operators.token(COMPLIANCE, { expiresInSec: -60 })));
    expect([expired.status, expired.body.code]).toEqual([401, 'TOKEN_EXPIRED']);
    const support = await t.h.call(method, path, undefined, await t.as(SUPPORT));
    expect([support.status, support.body.code]).toEqual([403, 'OPERATOR_ROLE_REQUIRED']);
    expect([...undocumented(doc, method, documented, none), ...undocumented(doc, method, documented, support)]).toEqual([]);
    const before = await t.h.admin.query(
      `SELECT (SELECT count(*) FROM ledger.account_audits)::int AS audits, (SELECT count(*) FROM ledger.balance_integrity_checks)::int AS checks`,
    );
    expect(before.rows[0]).toEqual({ audits: 0, checks: 0 });
  });

  it('every auditor route documents the refusals of its service key and operator token by their catalogue codes', async () => {
    const doc = await openApiOf(t.h.app.app);
    for (const [path, method] of [
      ['/v1/internal/accounts/{id}/audit', 'get'],
      ['/v1/internal/integrity-checks', 'post'],
      ['/v1/internal/integrity-checks', 'get'],
    ]) {
      const responses = doc.paths[path]?.[method]?.responses ?? {};
      for (const code of ['INVALID_SERVICE_CREDENTIALS', 'OPERATOR_TOKEN_REQUIRED', 'TOKEN_INVALID', 'TOKEN_EXPIRED']) {
        expect(responses['401']?.description).toContain(`\`${code}\``);
      }
      for (const code of ['SERVICE_NOT_ALLOWED', 'OPERATOR_ROLE_REQUIRED']) expect(responses['403']?.description).toContain(`\`${code}\``);
    }
  });

  it("an audit is journaled with the operator, the calling service and the request id; the orchestrator's key is accepted", async () => {
    const account = await fundedAccount(t.h, 500);
    const requestId = randomUUID();
    const viaOrchestrator = await t.h.call('GET', `/v1/internal/accounts/${account}/audit`, undefined, {
      ...(await t.as(COMPLIANCE)),
      'x-service-key': callerKey('orchestrator'),
      'x-request-id': requestId,
    });
    expect(viaOrchestrator.status).toBe(200);
    expect(viaOrchestrator.body).toMatchObject({ status: 'OK', account: { id: account } });
    const viaOps = await t.h.call('GET', `/v1/internal/accounts/${account}/audit`, undefined, {
      ...(await t.as(ADMIN)),
      'x-service-key': callerKey('ops'),
    });
    expect(viaOps.status).toBe(200);
    // a service that has no business here is still refused, token or not
    const partners = await t.h.call('GET', `/v1/internal/accounts/${account}/audit`, undefined, {
      ...(await t.as(COMPLIANCE)),
      'x-service-key': callerKey('partners'),
    });
    expect([partners.status, partners.body.code]).toEqual([403, 'SERVICE_NOT_ALLOWED']);
    const journal = await t.h.admin.query(
      `SELECT operator_id, operator_roles, caller, request_id, status FROM ledger.account_audits WHERE account_id = $1 ORDER BY created_at`,
      [account],
    );
    expect(journal.rows).toEqual([
      { operator_id: COMPLIANCE.id, operator_roles: COMPLIANCE.roles, caller: 'orchestrator', request_id: requestId, status: 'OK' },
      { operator_id: ADMIN.id, operator_roles: ADMIN.roles, caller: 'ops', request_id: expect.any(String), status: 'OK' },
    ]);
  });

  it('the audit journal, the checks and their alerts are append-only: UPDATE, DELETE and TRUNCATE are refused by the database', async () => {
    await t.h.call('POST', '/v1/internal/integrity-checks', undefined, await t.as(COMPLIANCE));
    for (const [table, column] of [
      ['account_audits', 'status'],
      ['balance_integrity_checks', 'status'],
    ]) {
      await expect(t.h.admin.query(`UPDATE ledger.${table} SET ${column} = 'OK'`)).rejects.toThrow(/append-only: UPDATE/);
      await expect(t.h.admin.query(`DELETE FROM ledger.${table}`)).rejects.toThrow(/append-only: DELETE/);
      await expect(t.h.admin.query(`TRUNCATE ledger.${table} CASCADE`)).rejects.toThrow(/append-only: TRUNCATE/);
    }
    await expect(t.h.admin.query(`TRUNCATE ledger.balance_integrity_alerts`)).rejects.toThrow(/append-only: TRUNCATE/);
    expect((await t.h.admin.query(`SELECT count(*)::int AS n FROM ledger.balance_integrity_checks`)).rows[0].n).toBe(1);
  });

  it('an on-demand check records who asked (and through which service); the nightly run records the scheduler', async () => {
    const requestId = randomUUID();
    const run = await t.h.call('POST', '/v1/internal/integrity-checks', undefined, {
      ...(await t.as(ADMIN)),
      'x-service-key': callerKey('orchestrator'),
      'x-request-id': requestId,
    });
    expect(run.status).toBe(200);
    expect(run.body).toMatchObject({ trigger: 'ON_DEMAND', requestedBy: ADMIN.id, status: 'OK', gapCount: 0, gapsListed: 0 });
    const nightly = await t.h.app.app.get(IntegrityCheckService).run();
    expect(nightly).toMatchObject({ trigger: 'SCHEDULED', requestedBy: 'scheduler', status: 'OK' });
    const rows = await t.h.admin.query(
      `SELECT id, trigger, requested_by, requested_by_roles, caller, request_id FROM ledger.balance_integrity_checks WHERE id = ANY($1::uuid[]) ORDER BY started_at`,
      [[run.body.id, nightly.id]],
    );
    expect(rows.rows).toEqual([
      {
        id: run.body.id,
        trigger: 'ON_DEMAND',
        requested_by: ADMIN.id,
        requested_by_roles: ADMIN.roles,
        caller: 'orchestrator',
        request_id: requestId,
      },
      { id: nightly.id, trigger: 'SCHEDULED', requested_by: 'scheduler', requested_by_roles: [], caller: null, request_id: null },
    ]);
    const listed = await t.h.call('GET', '/v1/internal/integrity-checks?limit=2', undefined, await t.as(COMPLIANCE));
    expect(listed.body.map((c: { requestedBy: string }) => c.requestedBy)).toEqual(['scheduler', ADMIN.id]);
    expect(undocumented(await openApiOf(t.h.app.app), 'GET', '/v1/internal/integrity-checks', listed)).toEqual([]);
  });

  it('a failed alert is tried again (bounded) and its outcome is stored with the check', async () => {
    const account = await fundedAccount(t.h, 100);
    await t.h.admin.query(`UPDATE ledger.accounts SET balance = balance + 5, available_balance = available_balance + 5 WHERE id = $1`, [
      account,
    ]);

    // The request tries its alert once and answers; the background re-send (run here by hand, as its
    // timer would) tries again, up to ALERT_ATTEMPTS tries in all.
    const checks = t.h.app.app.get(IntegrityCheckService);

    answers = [500];
    deliveries = 0;
    const posted = await t.h.call('POST', '/v1/internal/integrity-checks', undefined, await t.as(COMPLIANCE));
    expect(posted.body).toMatchObject({ status: 'GAPS_FOUND', alertSent: false });
    expect(deliveries).toBe(1);
    const [resent] = await checks.resendUndeliveredAlerts();
    expect(resent?.id).toBe(posted.body.id);
    const retried = { body: resent! };
    expect(retried.body).toMatchObject({ status: 'GAPS_FOUND', alertSent: true });
    expect(deliveries).toBe(2);

    answers = [503, 503, 503, 503];
    deliveries = 0;
    const failed = await t.h.call('POST', '/v1/internal/integrity-checks', undefined, await t.as(COMPLIANCE));
    expect(deliveries).toBe(1);
    for (let pass = 0; pass < 3; pass++) await checks.resendUndeliveredAlerts(); // the third pass finds no try left
    expect(failed.body).toMatchObject({ status: 'GAPS_FOUND', alertSent: false });
    expect(deliveries).toBe(3);
    answers = [];

    const stored = await t.h.admin.query(
      // each try is a row; the one with the highest attempt number is the alert's outcome
      `SELECT check_id, attempts, delivered, last_error FROM (
         SELECT DISTINCT ON (check_id) * FROM ledger.balance_integrity_alerts WHERE check_id = ANY($1::uuid[]) ORDER BY check_id, attempts DESC) a
       ORDER BY created_at`,
      [[retried.body.id, failed.body.id]],
    );
    expect(stored.rows).toEqual([
      { check_id: retried.body.id, attempts: 2, delivered: true, last_error: null },
      { check_id: failed.body.id, attempts: 3, delivered: false, last_error: 'alert webhook answered 503' },
    ]);
    const listed = await t.h.call('GET', '/v1/internal/integrity-checks?limit=2', undefined, await t.as(COMPLIANCE));
    expect(listed.body.map((c: { alert: unknown }) => c.alert)).toEqual([
      { attempts: 3, delivered: false, lastError: 'alert webhook answered 503' },
      { attempts: 2, delivered: true, lastError: null },
    ]);
  });

  it('a check whose process stopped before its first alert try is alerted by the re-send, once that try is long overdue', async () => {
    const checks = t.h.app.app.get(IntegrityCheckService);
    await checks.resendUndeliveredAlerts(); // nothing left over from the tests before
    const orphan = async (finishedSecondsAgo: number) => {
      const id = randomUUID();
      await t.h.admin.query(
        `INSERT INTO ledger.balance_integrity_checks (id, correlation_id, trigger, started_at, finished_at, accounts_checked, gap_count,
           account_gap_count, status, currency_totals, gaps, requested_by)
         VALUES ($1, $2, 'SCHEDULED', now() - make_interval(secs => $3 + 1), now() - make_interval(secs => $3), 10, 1, 1, 'GAPS_FOUND',
           '[]'::jsonb, $4::jsonb, 'scheduler')`,
        [id, randomUUID(), finishedSecondsAgo, JSON.stringify([{ accountId: randomUUID(), storedBalance: 5, ledgerBalance: 0, gap: 5 }])],
      );
      return id;
    };
    const stale = await orphan(120);
    const fresh = await orphan(1); // its run may still be making the first try
    const old = await orphan(2 * 86_400); // stored before tries were recorded: not announced now
    answers = [];
    deliveries = 0;
    const resent = await checks.resendUndeliveredAlerts();
    expect(resent.map((r) => r.id)).toEqual([stale]);
    expect(resent[0]).toMatchObject({ status: 'GAPS_FOUND', alertSent: true });
    expect(deliveries).toBe(1);
    const tries = await t.h.admin.query(
      `SELECT check_id, attempts, delivered FROM ledger.balance_integrity_alerts WHERE check_id = ANY($1::uuid[])`,
      [[stale, fresh, old]],
    );
    expect(tries.rows).toEqual([{ check_id: stale, attempts: 1, delivered: true }]);
    expect(await checks.resendUndeliveredAlerts()).toEqual([]); // delivered: not sent again
  });

  // Last: it leaves 1 001 more accounts with a gap behind.
  it('counts every account with a gap, beyond the 1000 it lists, in the answer, the record and the gauge', async () => {
    await t.h.admin.query(`
      WITH w AS (
        INSERT INTO ledger.wallets (owner_type, owner_id) SELECT 'USER', 'gap-' || g FROM generate_series(1, 1001) g RETURNING id)
      INSERT INTO ledger.accounts (wallet_id, account_type, currency, holder, balance, available_balance)
      SELECT id, 'customer', 'XOF', 'gap', 1, 1 FROM w`);
    const run = await t.h.call('POST', '/v1/internal/integrity-checks', undefined, await t.as(COMPLIANCE));
    expect(run.status).toBe(200);
    // 1001 new ones + the account of the previous test; XOF's stored total (1001) ≠ its ledger total (0); XAF nets to 5
    expect(run.body).toMatchObject({ accountGapCount: 1002, gapsListed: 1000, gapCount: 1004 });
    expect(run.body.gaps).toHaveLength(1000);
    const metrics = await (await fetch(`${t.h.app.url}/metrics`)).text();
    expect(metrics).toMatch(/^ledger_integrity_gap_count 1004$/m);
    const listed = await t.h.call('GET', '/v1/internal/integrity-checks?limit=1', undefined, await t.as(COMPLIANCE));
    expect(listed.body[0]).toMatchObject({ id: run.body.id, gapCount: 1004, accountGapCount: 1002, gapsListed: 1000 });
    expect(undocumented(await openApiOf(t.h.app.app), 'POST', '/v1/internal/integrity-checks', run)).toEqual([]);
  });
});

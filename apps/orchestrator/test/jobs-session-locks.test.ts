import { ApprovalSweep } from '../src/approvals/approval-sweep.service';
import { LedgerChainWitness } from '../src/compliance/ledger-chain-witness.service';
import { newPhone } from '../../../test/e2e/money-platform';
import { PlatformHarness } from './platform-harness';

/**
 * The orchestrator's periodic jobs that hold a session advisory lock while their work queries the
 * pool, on the 2-connection pool of the docs harness. When each job kept its lock on a pooled
 * connection, the approval sweep and the ledger chain witness running at once took both
 * connections, each then waited for a third, and every checkout of the process, the request's
 * included, failed after the pool's 5 s wait (503). Their locks now sit outside the pool.
 */
describe('orchestrator periodic jobs with advisory locks on DB_POOL_SIZE=2', () => {
  const h = new PlatformHarness();

  beforeAll(async () => {
    // every lock-holding job is run by the test itself, never by a timer
    await h.start({
      orchestrator: {
        DB_POOL_SIZE: '2',
        APPROVAL_SWEEP_INTERVAL_MS: '0',
        LEDGER_CHAIN_WITNESS_INTERVAL_MS: '0',
        REGULATORY_DAILY_REPORT_INTERVAL_MS: '0',
        REGULATORY_DEADLINE_CHECK_INTERVAL_MS: '0',
      },
    });
  }, 120_000);
  afterAll(() => h.stop());

  it('the approval sweep and the chain witness at once both finish, and a request made meanwhile is served', async () => {
    const token = await h.adminToken();
    const sweep = h.orchestrator.app.get(ApprovalSweep);
    const witness = h.orchestrator.app.get(LedgerChainWitness);
    for (let round = 0; round < 3; round++) {
      const [swept, witnessed, listed] = await Promise.all([
        sweep.runOnce(),
        witness.runNow(),
        h.call('GET', '/api/backoffice/approvals', { token }),
      ]);
      expect({ round, ran: swept.ran, witness: witnessed.status, request: listed.status }).toEqual({
        round,
        ran: true,
        witness: expect.stringMatching(/^(RECORDED|UNCHANGED)$/),
        request: 200,
      });
    }
  });
});

/**
 * The bootstrap exception's lock (staff-creation.service.ts) on the same pool: the first creation
 * holds it while registering through the pool, and a second creation of a checker waits for it.
 * When the waiter sat on a pooled connection, the holder's registration found none free.
 */
describe('staff bootstrap exception on DB_POOL_SIZE=2', () => {
  const h = new PlatformHarness();

  beforeAll(async () => {
    await h.start({ orchestrator: { DB_POOL_SIZE: '2', APPROVAL_SWEEP_INTERVAL_MS: '0', LEDGER_CHAIN_WITNESS_INTERVAL_MS: '0' } });
  }, 120_000);
  afterAll(() => h.stop());

  it('two first checkers asked at once: one is created by the exception, the other waits for a second person', async () => {
    const token = await h.adminToken();
    const create = (lastName: string) =>
      h.call('POST', '/api/orchestrator/admin/staff', {
        token,
        body: { phone: newPhone(), pin: '4826', firstName: 'First', lastName, countryCode: 'CM', role: 'COMPLIANCE' },
      });
    const answers = await Promise.all([create('One'), create('Two')]);
    const outcomes = answers.map((a) => `${a.status} ${a.body.bootstrapException === true ? 'exception' : (a.body.status ?? a.body.code)}`);
    expect(outcomes.sort()).toEqual(['201 exception', '202 PENDING']);
    expect(await h.count(`SELECT count(*) AS n FROM orchestrator.staff WHERE role IN ('COMPLIANCE', 'ADMIN')`)).toBe(1);
  });
});

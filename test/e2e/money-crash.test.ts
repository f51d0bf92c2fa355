import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { serviceEnv } from '../support/test-env';
import { MoneyPlatform, type TestUser } from './money-platform';
import { freePort } from '../support/free-port';

const ROOT = join(__dirname, '..', '..');

/**
 * An orchestrator in its own process, killed (SIGKILL) right after the ledger committed a confirm
 * and before it could record or answer anything: the confirm retried through another orchestrator
 * answers SUCCEEDED with the transaction the ledger made, once.
 */
describe('orchestrator killed between the ledger commit and its answer', () => {
  const p = new MoneyPlatform();
  let child: ChildProcess;
  let exited: Promise<NodeJS.Signals | null>;
  let url: string;
  let output = '';
  let alice: TestUser;
  let bob: TestUser;

  beforeAll(async () => {
    await p.start();
    [alice, bob] = [await p.register('CUSTOMER'), await p.register('CUSTOMER')];
    await p.fund(alice.accounts.XAF, 20_000);
    const [port, internalPort] = [await freePort(), await freePort()];
    url = `http://127.0.0.1:${port}`;
    child = spawn(process.execPath, ['-r', '@swc-node/register', join(ROOT, 'apps/orchestrator/src/main.ts')], {
      cwd: ROOT,
      env: {
        PATH: process.env.PATH,
        SWC_NODE_PROJECT: join(ROOT, 'tsconfig.json'),
        ...serviceEnv('orchestrator', p.db, p.redis, {
          PORT: String(port),
          INTERNAL_PORT: String(internalPort),
          LOG_LEVEL: 'warn',
          AUTH_URL: p.auth.url,
          LEDGER_URL: p.ledger.url,
          PARTNERS_URL: 'http://127.0.0.1:9',
          PAYMENTS_FAULT_INJECTION: 'true',
          SMS_RELAY_POLL_MS: '0',
        }),
      } as NodeJS.ProcessEnv,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout!.on('data', (d) => (output += d));
    child.stderr!.on('data', (d) => (output += d));
    exited = new Promise((resolve) => child.on('exit', (_code, signal) => resolve(signal)));
    for (let i = 0; ; i++) {
      try {
        if ((await fetch(`${url}/health`)).ok) break;
      } catch {
        /* not listening yet */
      }
      if (i > 300 || child.exitCode !== null) throw new Error(`child orchestrator did not start: ${output.slice(-2000)}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }, 60_000);

  afterAll(async () => {
    if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await p.stop();
  });

  it('the retried confirm answers SUCCEEDED with the same transaction; one transaction, one pair of SMS', async () => {
    const created = await p.call('POST', '/api/v1/intents', {
      token: alice.token,
      body: { type: 'TRANSFER', amount: 3_000, clientPhone: bob.phone, idempotencyKey: randomUUID() },
    });
    const id = created.body.intentId as string;
    expect((await p.call('POST', `/api/v1/intents/${id}/verify-pin`, { token: alice.token, body: { pin: alice.pin } })).status).toBe(200);

    const answer = await fetch(`${url}/api/v1/intents/${id}/confirm`, {
      method: 'POST',
      headers: { authorization: `Bearer ${alice.token}`, 'x-payments-fault': 'kill-after-ledger-commit' },
    }).then(
      (r) => r.status,
      () => 'no answer',
    );
    expect(answer).toBe('no answer');
    expect(await exited).toBe('SIGKILL');

    const ledger = await p.ledgerCall('GET', `/v1/internal/intents/${id}`);
    expect(ledger.body.status).toBe('SUCCEEDED');
    const retried = await p.call('POST', `/api/v1/intents/${id}/confirm`, { token: alice.token });
    expect(retried.status).toBe(200);
    expect(retried.body).toMatchObject({
      status: 'SUCCEEDED',
      transactionId: ledger.body.transactionId,
      referenceId: ledger.body.referenceId,
      fees: 50,
    });
    const { rows } = await p.sql.query(`SELECT count(*)::int AS n FROM ledger.transactions WHERE intent_id = $1`, [id]);
    expect(rows[0].n).toBe(1);
    const sms = await p.sql.query(`SELECT count(*)::int AS n FROM orchestrator.sms_outbox WHERE dedupe_key LIKE $1`, [`payment:${id}:%`]);
    expect(sms.rows[0].n).toBe(2);
    expect(await p.balance(alice.accounts.XAF)).toEqual({ balance: 16_950, availableBalance: 16_950, frozenBalance: 0 });
    expect(await p.invariants()).toMatchObject({ ledgerGaps: 0, splitGaps: 0, intentMismatches: 0, unbalancedTransactions: 0 });
  });
});

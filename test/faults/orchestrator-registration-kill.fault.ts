/**
 * kill -9 of the orchestrator while registrations (customers, merchants, agents: sagas over auth,
 * the orchestrator's own tables and the ledger) are in flight, then a restart. Clients retry each
 * registration with its Idempotency-Key until a definite answer. Proves: the recovery job finishes
 * or undoes every run the kill cut, every registration ends as exactly one account that can sign
 * in and has its wallet, and nothing is left half-created anywhere (no identity, local user,
 * customer or open wallet that does not belong to a finished registration).
 */
import type { Client } from 'pg';
import { HttpCaller, Tally } from './support/ledger-load';
import { type FaultPlatform, startFaultPlatform } from './support/platform';
import {
  type RegistrationKind,
  type RegistrationOutcome,
  bearer,
  inParallel,
  login,
  planRegistration,
  replayRegistration,
  runRegistration,
} from './support/public-load';
import { reportRow } from './support/report';
import { waitUntil } from './support/webhook-load';

const REGISTRATIONS = 36;
const CLIENTS = 8;
const KILL_AFTER = 10;
const KINDS: RegistrationKind[] = ['customer', 'merchant', 'customer', 'agent', 'customer', 'merchant'];

describe('fault: kill -9 of the orchestrator mid-registration', () => {
  let platform: FaultPlatform;
  let admin: Client;

  beforeAll(async () => {
    platform = await startFaultPlatform({ services: ['auth', 'ledger-wallets', 'orchestrator'] });
    admin = await platform.pg.admin();
  }, 90_000);
  afterAll(async () => {
    await admin?.end();
    await platform?.close();
  });

  it('finishes or undoes every interrupted run: one account with its wallet per registration, no leftovers', async () => {
    const orchestrator = platform.service('orchestrator');
    const tally = new Tally();
    const gateway = new HttpCaller(orchestrator.url, tally);
    const plans = Array.from({ length: REGISTRATIONS }, (_, n) => planRegistration(n, KINDS[n % KINDS.length]));

    let crash: Promise<void> | undefined;
    let pidBefore: number | undefined;
    const outcomes: RegistrationOutcome[] = await inParallel(
      plans,
      CLIENTS,
      (plan) => runRegistration(gateway, plan, Date.now() + 75_000),
      (done) => {
        if (done < KILL_AFTER || crash) return;
        pidBefore = orchestrator.pid;
        crash = orchestrator.crashAndRestart();
      },
    );
    await crash;
    const requests = tally.requests;

    // Every run ends: the recovery job takes over the ones the kill left running (quiet for 8 s).
    const unfinished = async () =>
      (await admin.query<{ n: number }>(`SELECT count(*)::int AS n FROM orchestrator.sagas WHERE status IN ('running', 'compensating')`))
        .rows[0].n;
    await waitUntil('every registration run to end', async () => (await unfinished()) === 0, 30_000);
    const recovery = recoveryLines(orchestrator.logs());

    const state = await registrationState(
      admin,
      plans.map((p) => p.phone),
    );
    // Each account signs in and sees its wallet; the same registration sent again answers the same account.
    let usable = 0;
    let replaysMatching = 0;
    for (const o of outcomes.filter((x) => x.registered)) {
      const token = await login(gateway, o.plan.phone);
      const wallet = await gateway.call('GET', '/api/orchestrator/me/wallet', undefined, bearer(token));
      if (wallet.kind === 'answer' && wallet.status === 200 && wallet.body.walletId === o.registered!.walletId) usable += 1;
      const again = await replayRegistration(gateway, o.plan);
      if (again.kind === 'answer' && again.status === 201 && again.replayed && again.body.userId === o.registered!.userId)
        replaysMatching += 1;
    }

    const lost = REGISTRATIONS - usable + state.leftovers;
    const duplicated = state.extraSucceeded + (outcomes.filter((o) => o.registered).length - replaysMatching);
    reportRow({
      case: 'kill -9 orchestrator mid-registration',
      faults: `kill -9 orchestrator ×${orchestrator.kills} (after ${KILL_AFTER}/${REGISTRATIONS} registrations, ${CLIENTS} in flight), restart 0.5 s later`,
      requests,
      committed: state.succeeded,
      failedStable: tally.failedStable,
      noAnswer: tally.noAnswer,
      lost,
      duplicated,
      notes: `recovery: ${recovery.finished} runs finished, ${recovery.undone} undone, ${recovery.compensations} compensations carried on; ${state.compensated} compensated runs retried under the same key; ${usable} accounts sign in with their wallet; errors: ${tally.codeList() || 'none'}`,
    });

    expect(orchestrator.kills).toBe(1);
    expect(orchestrator.pid).not.toBe(pidBefore);
    expect(tally.noAnswer).toBeGreaterThan(0);
    expect(tally.unstable).toEqual([]);
    expect(Object.keys(tally.codes).filter((k) => k.startsWith('500'))).toEqual([]);
    // The kill cut runs and the restarted process's recovery job dealt with them.
    expect(recovery.finished + recovery.undone + recovery.compensations).toBeGreaterThan(0);
    expect(outcomes.filter((o) => !o.registered)).toEqual([]);
    expect(state).toMatchObject({
      succeeded: REGISTRATIONS,
      extraSucceeded: 0,
      stuck: 0,
      leftovers: 0,
      localUsers: REGISTRATIONS,
      activeLocalUsers: REGISTRATIONS,
      idpUsers: REGISTRATIONS,
      customersWithWallet: REGISTRATIONS,
      merchants: plans.filter((p) => p.kind === 'merchant').length,
      agents: plans.filter((p) => p.kind === 'agent').length,
      openWallets: REGISTRATIONS,
    });
    expect({ usable, replaysMatching }).toEqual({ usable: REGISTRATIONS, replaysMatching: REGISTRATIONS });
  });
});

/** What the restarted orchestrator's recovery job said it did (its warn lines). */
function recoveryLines(lines: string[]) {
  const count = (msg: string) => lines.filter((l) => l.includes(msg)).length;
  return {
    finished: count('recovering an interrupted registration: finishing it'),
    undone: count('recovering an interrupted registration: undoing it'),
    compensations: count('recovering an interrupted compensation'),
  };
}

/**
 * The registrations as the databases hold them (auth, orchestrator, ledger), read directly: the
 * runs of the plan's phones, and everything a run creates, compared with what the succeeded runs own.
 */
async function registrationState(admin: Client, phones: string[]) {
  const one = async (sql: string, params: unknown[] = []) => (await admin.query<{ n: number }>(sql, params)).rows[0].n;
  const sagas = await admin.query<{ phone: string; status: string; context: Record<string, unknown> & { wallet?: { ownerId: string } } }>(
    `SELECT phone, status, context FROM orchestrator.sagas WHERE phone = ANY($1)`,
    [phones],
  );
  const succeeded = sagas.rows.filter((s) => s.status === 'succeeded');
  const perPhone = new Map<string, number>();
  for (const s of succeeded) perPhone.set(s.phone, (perPhone.get(s.phone) ?? 0) + 1);
  const userIds = succeeded.map((s) => String(s.context.userId));
  const idpIds = succeeded.map((s) => String(s.context.idpUserId));
  const profileIds = succeeded.map((s) => String(s.context.profileId));
  const owners = succeeded.map((s) => s.context.wallet!.ownerId);

  // Anything that exists and belongs to no succeeded run is a leftover: the platform holds only these registrations.
  const leftovers = {
    idpUsers: await one(`SELECT count(*)::int AS n FROM auth.idp_users WHERE NOT (id = ANY($1::uuid[]))`, [idpIds]),
    localUsers: await one(`SELECT count(*)::int AS n FROM auth.users WHERE NOT (id = ANY($1::uuid[]))`, [userIds]),
    customers: await one(`SELECT count(*)::int AS n FROM orchestrator.customers WHERE NOT (id = ANY($1::uuid[]))`, [profileIds]),
    // A compensated wallet is closed and never moved money (ledger rows are never deleted).
    openWallets: await one(
      `SELECT count(*)::int AS n FROM ledger.wallets w
        WHERE w.owner_type <> 'SYSTEM' AND NOT (w.owner_id = ANY($1::text[]))
          AND (w.status <> 'CLOSED' OR EXISTS (SELECT 1 FROM ledger.accounts a WHERE a.wallet_id = w.id AND a.balance <> 0))`,
      [owners],
    ),
    // the welcome SMS of an undone run is cancelled before anyone sends it
    welcomeSmsOfUndoneRuns: await one(
      `SELECT count(*)::int AS n FROM orchestrator.sms_outbox WHERE status IN ('pending', 'sent') AND dedupe_key = ANY($1)`,
      [sagas.rows.filter((s) => s.status !== 'succeeded').map((s) => `registration:${String(s.context.userId)}`)],
    ),
  };
  return {
    succeeded: perPhone.size,
    extraSucceeded: succeeded.length - perPhone.size,
    compensated: sagas.rows.filter((s) => s.status === 'compensated').length,
    stuck: sagas.rows.filter((s) => !['succeeded', 'compensated'].includes(s.status)).length,
    leftovers: Object.values(leftovers).reduce((a, b) => a + b, 0),
    leftoverDetail: leftovers,
    localUsers: await one(`SELECT count(*)::int AS n FROM auth.users WHERE id = ANY($1::uuid[])`, [userIds]),
    activeLocalUsers: await one(`SELECT count(*)::int AS n FROM auth.users WHERE id = ANY($1::uuid[]) AND status = 'ACTIVE'`, [userIds]),
    idpUsers: await one(`SELECT count(*)::int AS n FROM auth.idp_users WHERE id = ANY($1::uuid[])`, [idpIds]),
    customersWithWallet: await one(
      `SELECT count(*)::int AS n FROM orchestrator.customers c JOIN ledger.wallets w ON w.id = c.wallet_id AND w.status = 'ACTIVE'
        WHERE c.id = ANY($1::uuid[]) AND c.registered_at IS NOT NULL`,
      [profileIds],
    ),
    merchants: await one(`SELECT count(*)::int AS n FROM orchestrator.merchants WHERE customer_id = ANY($1::uuid[])`, [profileIds]),
    agents: await one(`SELECT count(*)::int AS n FROM orchestrator.agents WHERE customer_id = ANY($1::uuid[])`, [profileIds]),
    openWallets: await one(`SELECT count(*)::int AS n FROM ledger.wallets WHERE owner_id = ANY($1::text[]) AND status = 'ACTIVE'`, [
      owners,
    ]),
  };
}

/**
 * A bounded burst of transfers against a ledger that may die or lose its database at any moment,
 * driven the way the orchestrator drives it: create the intent, the PIN step with a consent proof,
 * confirm — every step with its own idempotency key, retried with that same key until a definite
 * answer. Afterwards it checks what a payments platform promises: every transfer executed exactly
 * once, balances as the model predicts, and a confirmation retried later returns the committed answer.
 */
import { randomUUID } from 'node:crypto';
import type { Client } from 'pg';
import { isErrorCode } from '@mm/errors';
import type { ConsentSigner } from '../../../apps/ledger-wallets/test/consent-signer';
import { type Invariants, checkInvariants } from '../../../apps/ledger-wallets/test/invariants';

/** Answers worth retrying with the same key: the ledger (or its database) was away, or the key is still held. */
const RETRY_CODES = new Set(['SERVICE_UNAVAILABLE', 'INTERNAL_ERROR', 'IDEMPOTENCY_KEY_IN_PROGRESS', 'CONCURRENCY_CONFLICT']);
const ACTOR = { id: 'fault-user', ip: '10.0.0.1', userAgent: 'fault-test' };

export type Answer =
  | {
      kind: 'answer';
      status: number;
      body: Record<string, unknown>;
      replayed: boolean;
      /** the response's headers (Server-Timing, Retry-After, …) */
      headers: Headers;
    }
  | { kind: 'none'; error: string };

/** What the requests of a run met. */
export class Tally {
  requests = 0;
  noAnswer = 0;
  failedStable = 0;
  replayed = 0;
  /** error answers by status and code, e.g. "503 SERVICE_UNAVAILABLE" */
  readonly codes: Record<string, number> = {};
  /** error answers without a catalogue code, or whose message leaks a driver error (must stay empty) */
  readonly unstable: string[] = [];

  codeList(): string {
    return Object.entries(this.codes)
      .map(([k, n]) => `${k} ×${n}`)
      .join(', ');
  }
}

/** Traces of a PostgreSQL, pg, TypeORM or Node socket error that must never reach a caller. */
const DRIVER_WORDS =
  /ECONN|ETIMEDOUT|EPIPE|terminat|QueryFailed|QueryRunner|pg_|SQLSTATE|relation "|syntax error|not queryable|timeout exceeded|\bat \w+ \(/i;

/**
 * Calls one service over HTTP and files every answer in the tally: errors by code, and any error
 * answer that is not a catalogue code or that leaks a driver error (must never happen).
 */
export class HttpCaller {
  constructor(
    readonly baseUrl: string,
    readonly tally: Tally,
    /** sent with every request (a service key, …) */
    private readonly baseHeaders: Record<string, string> = {},
    /** how long one request may take before it counts as unanswered */
    private readonly timeoutMs = 15_000,
  ) {}

  async call(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Answer> {
    this.tally.requests += 1;
    let res: Response;
    let text: string;
    try {
      res = await fetch(`${this.baseUrl}${path}`, {
        method,
        headers: { ...this.baseHeaders, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(this.timeoutMs),
      });
      text = await res.text();
    } catch (error) {
      this.tally.noAnswer += 1;
      return { kind: 'none', error: String((error as Error).cause ?? error) };
    }
    let parsed: Record<string, unknown>;
    try {
      parsed = (text ? JSON.parse(text) : {}) as Record<string, unknown>;
    } catch {
      parsed = { unparsable: text.slice(0, 300) };
    }
    const replayed = res.headers.get('idempotent-replayed') === 'true';
    if (replayed) this.tally.replayed += 1;
    if (res.status >= 400) {
      const code = parsed.code;
      const key = `${res.status} ${String(code)}`;
      this.tally.codes[key] = (this.tally.codes[key] ?? 0) + 1;
      if (typeof code === 'string' && isErrorCode(code) && !DRIVER_WORDS.test(String(parsed.message))) this.tally.failedStable += 1;
      else this.tally.unstable.push(`${method} ${path} → ${res.status} ${text.slice(0, 300)}`);
    }
    return { kind: 'answer', status: res.status, body: parsed, replayed, headers: res.headers };
  }
}

/** The ledger's internal API, called with the service key as the orchestrator calls it. */
export class LedgerCaller extends HttpCaller {
  constructor(baseUrl: string, serviceKey: string, tally: Tally) {
    super(baseUrl, tally, { 'x-service-key': serviceKey });
  }
}

export interface PlannedTransfer {
  n: number;
  source: string;
  destination: string;
  amount: number;
  createKey: string;
  pinKey: string;
  confirmKey: string;
  /** a merchant order's QR token: the transfer pays that order (partners turns it into order.paid) */
  qrToken?: string;
}

export interface TransferOutcome {
  plan: PlannedTransfer;
  intentId?: string;
  /** the body of the first 200 the confirmation got */
  committed?: Record<string, unknown>;
  /** a definite refusal (business code), or why it never finished */
  refused?: string;
  unfinished?: string;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export function retryable(a: Answer): boolean {
  return a.kind === 'none' || a.status >= 500 || RETRY_CODES.has(String(a.body.code));
}

/** Repeats one step (same key) until a definite answer or the deadline. */
export async function untilDefinite(step: () => Promise<Answer>, deadline: number): Promise<Answer> {
  let pause = 50;
  for (;;) {
    const answer = await step();
    if (!retryable(answer) || Date.now() > deadline) return answer;
    await sleep(pause);
    pause = Math.min(pause * 2, 500);
  }
}

/**
 * A user wallet opened as the orchestrator opens it, funded through the test-funding flow of the
 * legacy adjustment (NODE_ENV=test, an operators' route: `opsKey`), as the ledger's own tests fund accounts.
 */
export async function createFundedAccount(caller: LedgerCaller, amount: number, opsKey: string): Promise<string> {
  const wallet = await caller.call('POST', '/v1/internal/wallets', { ownerType: 'USER', ownerId: randomUUID(), currencies: ['XAF'] });
  if (wallet.kind !== 'answer' || wallet.status !== 201) throw new Error(`wallet: ${JSON.stringify(wallet)}`);
  const accounts = wallet.body.accounts as { id: string; accountType: string }[];
  const account = accounts.find((a) => !a.accountType.includes('commission'))!;
  const add = await caller.call(
    'PUT',
    `/v1/accounts/${account.id}/balance/add`,
    { amount, reason: 'fault test funding', createdBy: 'fault-test' },
    { 'x-service-key': opsKey },
  );
  if (add.kind !== 'answer' || add.status !== 200) throw new Error(`funding: ${JSON.stringify(add)}`);
  return account.id;
}

/** `count` transfers among the accounts in a ring, small enough that none can be refused for funds. */
export function planTransfers(accounts: string[], count: number): PlannedTransfer[] {
  return Array.from({ length: count }, (_, n) => ({
    n,
    source: accounts[n % accounts.length],
    destination:
      accounts[(n * 7 + 1) % accounts.length] === accounts[n % accounts.length]
        ? accounts[(n + 1) % accounts.length]
        : accounts[(n * 7 + 1) % accounts.length],
    amount: 100 + (n % 9) * 25,
    createKey: randomUUID(),
    pinKey: randomUUID(),
    confirmKey: randomUUID(),
  }));
}

function confirmBody(p: PlannedTransfer) {
  return {
    toStatus: 'SUCCEEDED',
    actor: { id: ACTOR.id },
    executionContext: {
      sourceAccountId: p.source,
      destinationAccountId: p.destination,
      amount: p.amount,
      currency: 'XAF',
      metadata: { typeCode: p.qrToken ? 'QR_PAYMENT' : 'P2P' },
    },
  };
}

/** One transfer from the client's side, through whatever faults happen meanwhile. */
export async function runTransfer(
  caller: LedgerCaller,
  signer: ConsentSigner,
  p: PlannedTransfer,
  deadline: number,
): Promise<TransferOutcome> {
  const outcome: TransferOutcome = { plan: p };
  const created = await untilDefinite(
    () =>
      caller.call('POST', '/v1/internal/intents', {
        idempotencyKey: p.createKey,
        type: 'TRANSFER',
        sourceAccountId: p.source,
        destinationAccountId: p.destination,
        amount: p.amount,
        currency: 'XAF',
        ...(p.qrToken ? { qrToken: p.qrToken } : {}),
        actor: ACTOR,
      }),
    deadline,
  );
  if (created.kind !== 'answer' || created.status !== 201) return finalFailure(outcome, 'create', created);
  const intentId = String(created.body.intentId);
  outcome.intentId = intentId;

  // A retry after a cut carries a fresh proof: the key, not the proof, makes the retry the same request.
  const pinned = await untilDefinite(
    async () =>
      caller.call(
        'POST',
        `/v1/internal/intents/${intentId}/transition`,
        { toStatus: 'PIN_VERIFIED', actor: { id: ACTOR.id }, consentProof: await signer.sign({ sub: ACTOR.id, intentId, step: 'PIN' }) },
        { 'x-idempotency-key': p.pinKey },
      ),
    deadline,
  );
  if (pinned.kind !== 'answer' || pinned.status !== 200) return finalFailure(outcome, 'pin', pinned);

  const confirmed = await untilDefinite(
    () => caller.call('POST', `/v1/internal/intents/${intentId}/transition`, confirmBody(p), { 'x-idempotency-key': p.confirmKey }),
    deadline,
  );
  if (confirmed.kind !== 'answer' || confirmed.status !== 200) return finalFailure(outcome, 'confirm', confirmed);
  outcome.committed = confirmed.body;
  return outcome;
}

function finalFailure(outcome: TransferOutcome, step: string, answer: Answer): TransferOutcome {
  if (answer.kind === 'answer' && answer.status < 500 && !RETRY_CODES.has(String(answer.body.code)))
    outcome.refused = `${step}: ${answer.body.code}`;
  else outcome.unfinished = `${step}: ${answer.kind === 'none' ? answer.error : `${answer.status} ${answer.body.code}`}`;
  return outcome;
}

/** Runs the plan with `concurrency` clients; `onProgress` sees each finished transfer. */
export async function runBurst(
  caller: LedgerCaller,
  signer: ConsentSigner,
  plan: PlannedTransfer[],
  concurrency: number,
  deadline: number,
  onProgress: (done: number) => void = () => undefined,
  /** each client waits this long between two transfers (spreads a burst over a fault window) */
  pauseMs = 0,
): Promise<TransferOutcome[]> {
  const outcomes: TransferOutcome[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < plan.length) {
        const p = plan[next++];
        outcomes[p.n] = await runTransfer(caller, signer, p, deadline);
        onProgress(outcomes.filter(Boolean).length);
        if (pauseMs > 0) await sleep(pauseMs);
      }
    }),
  );
  return outcomes;
}

export interface LedgerVerdict {
  invariants: Invariants;
  totalsKept: boolean;
  committed: number;
  /** planned transfers not executed in the database, or executed without the client learning it by the end */
  lost: number;
  /** transfers executed more than once, or retried confirmations answering something else than the committed answer */
  duplicated: number;
  /** accounts whose balance differs from the model */
  balanceGaps: number;
  /** accounts whose frozen balance differs from what their open intents hold (a half-done freeze or release) */
  frozenGaps: number;
  /** later retries of a committed confirmation that got the stored answer back */
  replaysMatching: number;
}

/**
 * The database's and the client's views after the run: each planned transfer is one SUCCEEDED
 * intent with one transaction, balances equal funding ± the transfers, and the confirmation sent
 * again with its key answers the committed body, marked as a replay.
 */
/** Accounts whose frozen balance differs from what their open intents hold (a half-done freeze or release). */
export async function frozenMismatches(admin: Client): Promise<number> {
  const { rows } = await admin.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM ledger.accounts a
       LEFT JOIN (SELECT source_account_id, sum(frozen_amount) AS held FROM ledger.transaction_intents
                   WHERE status IN ('CREATED', 'OTP_SENT', 'OTP_VERIFIED', 'PIN_VERIFIED') GROUP BY source_account_id) i
         ON i.source_account_id = a.id
      WHERE a.frozen_balance <> COALESCE(i.held, 0)`,
  );
  return rows[0].n;
}

export async function verifyLedger(
  caller: LedgerCaller,
  admin: Client,
  outcomes: TransferOutcome[],
  funded: Map<string, number>,
  totalsBefore: Invariants['totals'],
): Promise<LedgerVerdict> {
  const invariants = await checkInvariants(admin);
  const keys = outcomes.map((o) => o.plan.createKey);
  const { rows } = await admin.query<{ key: string; status: string; intents: number; txs: number }>(
    `SELECT i.idempotency_key AS key, min(i.status) AS status, count(DISTINCT i.id)::int AS intents, count(t.id)::int AS txs
       FROM ledger.transaction_intents i LEFT JOIN ledger.transactions t ON t.intent_id = i.id
      WHERE i.idempotency_key = ANY($1) GROUP BY i.idempotency_key`,
    [keys],
  );
  const byKey = new Map(rows.map((r) => [r.key, r]));
  let lost = 0;
  let duplicated = 0;
  let committed = 0;
  const expected = new Map(funded);
  for (const o of outcomes) {
    const row = byKey.get(o.plan.createKey);
    const executed = row?.status === 'SUCCEEDED' && row.txs >= 1;
    if (row && (row.intents > 1 || row.txs > 1)) duplicated += 1;
    if (executed) {
      committed += 1;
      expected.set(o.plan.source, expected.get(o.plan.source)! - o.plan.amount);
      expected.set(o.plan.destination, expected.get(o.plan.destination)! + o.plan.amount);
    }
    // Nothing was refused for funds by construction: every planned transfer must have executed, and been acknowledged.
    if (!executed || !o.committed) lost += 1;
  }
  const balances = await admin.query<{ id: string; balance: string }>(`SELECT id, balance::text FROM ledger.accounts WHERE id = ANY($1)`, [
    [...funded.keys()],
  ]);
  const balanceGaps = balances.rows.filter((r) => Number(r.balance) !== expected.get(r.id)).length;

  const frozenGaps = await frozenMismatches(admin);

  let replaysMatching = 0;
  for (const o of outcomes.filter((x) => x.committed && x.intentId)) {
    const again = await caller.call('POST', `/v1/internal/intents/${o.intentId}/transition`, confirmBody(o.plan), {
      'x-idempotency-key': o.plan.confirmKey,
    });
    if (again.kind === 'answer' && again.status === 200 && again.replayed && JSON.stringify(again.body) === JSON.stringify(o.committed)) {
      replaysMatching += 1;
    } else duplicated += 1;
  }
  return {
    invariants,
    totalsKept: JSON.stringify(invariants.totals) === JSON.stringify(totalsBefore),
    committed,
    lost: lost + balanceGaps,
    duplicated,
    balanceGaps,
    frozenGaps,
    replaysMatching,
  };
}

import type { DbSession } from './db-session';
import type { ConfirmCall } from './execute-confirm-call';
import { uuidLockKey } from './lock-keys';

/** One money operation ready to run: its guarded call and what it locks. */
export interface GroupItem {
  /** the session of the request (idle while it waits); a batch runs on the first item's */
  session: DbSession;
  intentId: string;
  /** every account the call writes, lower-case */
  accountIds: string[];
  /**
   * The confirm as one `ledger.confirm_call` value: the database locks its rows, checks them and
   * writes only if the checks hold, then answers one row saying which. A call whose checks fail
   * writes nothing: the other calls of its batch still commit. Alone, the operation sends it to
   * `ledger.confirm_checked` (LedgerDb.confirm); in a batch, it is one element of the array of the
   * one call of `ledger.execute_confirm_batch`, which answers what the calls one after the other
   * would (LedgerDb.together).
   */
  call: ConfirmCall;
  /** locks the item's session holds already and may release with its COMMIT when it runs alone */
  alsoRelease: bigint[];
}

export interface GroupOutcome {
  rows: Record<string, unknown>[];
  /** time spent waiting for the account's previous batch, ms */
  queuedMs: number;
  /** how many operations shared this one's transaction (1: it ran alone) */
  batchSize: number;
}

/** How the batches run: the database side lives in LedgerDb. */
export interface GroupRunner {
  /** One operation alone, with the usual retries (LedgerDb.confirm). */
  single(item: GroupItem): Promise<Record<string, unknown>[]>;
  /** Several operations in ONE transaction, one attempt: the rows of each call (`GroupItem.call`), in order. */
  together(session: DbSession, lockKeys: bigint[], calls: ConfirmCall[]): Promise<Record<string, unknown>[][]>;
  /** operations that started or stopped waiting in a queue (a gauge for operators) */
  waiting?(delta: number): void;
  /** a batch failed as a whole (nothing committed): its `size` operations now run alone */
  fellBack?(size: number, error: unknown): void;
  /**
   * Whether a failed `together` may have committed (its connection broke before the answer came
   * back): such a batch must not run again; its operations answer "unknown, retry with your key".
   */
  mayHaveCommitted?(error: unknown): boolean;
}

interface Waiting {
  item: GroupItem;
  queuedAt: number;
  resolve(outcome: GroupOutcome): void;
  reject(error: unknown): void;
}

interface Lane {
  queue: Waiting[];
  /** batches running now */
  running: number;
  /** how many batches may run at once: 1 on an account's lane, `transactions` on the shared one */
  slots: number;
}

/** The lane of operations whose accounts are all idle (never an account id: not a UUID). */
const ANY_LANE = '*';

/** Largest batch: keeps one transaction's lock list and pipeline short. */
export const MAX_GROUP = 32;

/**
 * Group commit for hot accounts (docs/ledger.md "Locks, isolation and retries"). Every money
 * transaction holds the advisory lock of each account it writes from its first statement to its
 * COMMIT, WAL flush included; on an account every payment credits (a large merchant,
 * FEE_COLLECTION) that lock hold is the ceiling of the whole ledger, one transfer per flush. Here,
 * while an operation on an account is running, the next ones on that account queue; when it is
 * done, everything queued runs as ONE SERIALIZABLE transaction (advisory locks first, intents then
 * accounts in ascending id order, then each operation's guarded statement, one COMMIT): N transfers
 * per lock hold and per flush.
 *
 * The same batching serves load as well as contention (`transactions`,
 * LEDGER_GROUP_COMMIT_TRANSACTIONS): operations whose accounts are all idle share one lane with that
 * many slots. An operation that finds a free slot runs at once, alone, as without any batching; when
 * every slot is taken, the next ones wait, and the first slot to come free takes everything waiting
 * as one transaction. So a quiet ledger's latency does not change, and a busy one pays one round
 * trip, one commit and one WAL flush per batch rather than per transfer, with at most `transactions`
 * of these at once.
 */
export class GroupCommit {
  /** operations running or queued, per account (this process) */
  private readonly busy = new Map<string, number>();
  private readonly lanes = new Map<string, Lane>();
  /** set by `stop`: the refusal of every batch that has not started, or failed and would run again alone */
  private stopped?: () => unknown;
  /**
   * @param transactions how many transactions of operations on idle accounts may run at once before
   *   the next ones wait and go as one batch; 0: they all run alone (only busy accounts batch).
   */
  constructor(
    private readonly runner: GroupRunner,
    private readonly transactions = 0,
  ) {}

  /**
   * Shutdown: operations still queued are refused with `refusal()` instead of running (nothing of
   * them was done), and a failed batch's operations are refused instead of running again alone, so
   * a hot account's queue does not keep the process alive one lock wait after another.
   */
  stop(refusal: () => unknown): void {
    this.stopped = refusal;
  }

  async run(item: GroupItem): Promise<GroupOutcome> {
    // The account that already has the most work in flight decides the lane; none: the shared lane
    // (or alone, when it is off).
    let hot: string | undefined;
    let most = 0;
    for (const id of item.accountIds) {
      const n = this.busy.get(id) ?? 0;
      if (n > most || (n === most && n > 0 && hot !== undefined && id < hot)) {
        hot = id;
        most = n;
      }
    }
    if (!hot && this.transactions > 0) hot = ANY_LANE;
    for (const id of item.accountIds) this.busy.set(id, (this.busy.get(id) ?? 0) + 1);
    try {
      if (!hot) return { rows: await this.runner.single(item), queuedMs: 0, batchSize: 1 };
      return await this.enqueue(hot, item);
    } finally {
      for (const id of item.accountIds) {
        const n = (this.busy.get(id) ?? 1) - 1;
        if (n > 0) this.busy.set(id, n);
        else this.busy.delete(id);
      }
    }
  }

  private enqueue(account: string, item: GroupItem): Promise<GroupOutcome> {
    let lane = this.lanes.get(account);
    if (!lane) {
      lane = { queue: [], running: 0, slots: account === ANY_LANE ? this.transactions : 1 };
      this.lanes.set(account, lane);
    }
    const waiting = new Promise<GroupOutcome>((resolve, reject) => lane.queue.push({ item, queuedAt: performance.now(), resolve, reject }));
    this.runner.waiting?.(1);
    if (lane.running < lane.slots) void this.drain(account, lane);
    return waiting;
  }

  private async drain(account: string, lane: Lane): Promise<void> {
    lane.running++;
    try {
      while (lane.queue.length > 0) {
        const batch = lane.queue.splice(0, MAX_GROUP);
        this.runner.waiting?.(-batch.length);
        await this.runBatch(batch);
      }
    } finally {
      lane.running--;
      if (lane.queue.length > 0) void this.drain(account, lane);
      else if (lane.running === 0) this.lanes.delete(account);
    }
  }

  private async runBatch(batch: Waiting[]): Promise<void> {
    if (this.stopped) {
      for (const w of batch) w.reject(this.stopped());
      return;
    }
    const started = performance.now();
    const settle = (w: Waiting, rows: Record<string, unknown>[], size: number) =>
      w.resolve({ rows, queuedMs: started - w.queuedAt, batchSize: size });
    // Through a resolved promise: even a synchronous throw of the runner becomes that operation's
    // own rejection, never an unhandled one that would stop the lane (or the process).
    const alone = (w: Waiting) =>
      Promise.resolve()
        .then(() => this.runner.single(w.item))
        .then((rows) => settle(w, rows, 1), w.reject);
    if (batch.length === 1) {
      await alone(batch[0]);
      return;
    }
    try {
      const results = await this.runner.together(
        batch[0].item.session,
        groupLockKeys(batch.map((w) => w.item)),
        batch.map((w) => w.item.call),
      );
      batch.forEach((w, k) => settle(w, results[k], batch.length));
    } catch (error) {
      if (this.runner.mayHaveCommitted?.(error)) {
        for (const w of batch) w.reject(error);
        return;
      }
      // Read again: the stop may have come while the batch ran.
      const stopped = this.stopped as (() => unknown) | undefined;
      if (stopped) {
        for (const w of batch) w.reject(stopped());
        return;
      }
      // Nothing of the batch was committed: each operation again, alone, with its own retries and errors.
      this.runner.fellBack?.(batch.length, error);
      await Promise.all(batch.map(alone));
    }
  }
}

/**
 * The advisory locks of a batch in the global order every path follows (lock-keys.ts): intents
 * first, then accounts, each in ascending id order. One operation alone gets exactly the keys
 * `moneyLockKeys` gives it.
 */
export function groupLockKeys(items: { intentId: string; accountIds: string[] }[]): bigint[] {
  const intents = [...new Set(items.map((i) => i.intentId.toLowerCase()))].sort();
  const accounts = [...new Set(items.flatMap((i) => i.accountIds.map((a) => a.toLowerCase())))].sort();
  return [...new Set([...intents, ...accounts].map(uuidLockKey))];
}

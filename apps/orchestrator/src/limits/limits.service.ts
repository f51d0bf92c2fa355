import { Inject, Injectable, Logger } from '@nestjs/common';
import { escapeLiteral } from 'pg';
import { DataSource, type EntityManager } from 'typeorm';
import { type SqlWrite, queryRows, runWrite } from '@mm/platform';
import type { ConfigVersion } from '../config-api/config-sections';
import { ConfigVersionsService } from '../config-api/config-versions.service';
import type { LimitsDocument } from './limits-document';
import { type Usage, firstRefusal, tierLimits, usageRoom } from './limit-rules';
import { countedUsageSql, windowBoundsSql } from './usage-windows.sql';
import type { LimitCheck, LimitVerdict } from './limits.types';

export const LIMITS_CLOCK = Symbol('LIMITS_CLOCK');
/**
 * What dates holds and usage and bounds the windows counted. `null`: the database's clock at the
 * statement (`statement_timestamp()`), the one clock every replica shares, which is what the
 * service runs on (`DATABASE_CLOCK`); a replica whose own clock ran ahead would otherwise date holds
 * that the others do not count yet (`u.occurred_at <= now`). Not `now()`: that is the transaction's
 * start, read before the limit locks are waited for. Tests give a fixed time instead.
 */
export type Clock = () => Date | null;
export const DATABASE_CLOCK: Clock = () => null;
/** `$n` of a statement given the clock's reading: that time, or the statement's own in the database. */
const nowSql = (placeholder: string) => `COALESCE(${placeholder}::timestamptz, statement_timestamp())`;

type Subject = { kind: 'CUSTOMER' | 'AGENT'; id: string };

/** How a confirm's hold goes into the caller's statement (LimitsService.planHold). */
export type HoldPlan =
  | { kind: 'none' }
  | { kind: 'refused' }
  /** `lock`: the statement taking the subjects' locks; `write`: see planHold */
  | { kind: 'hold'; lock: string; write: () => SqlWrite };
type Queryable = DataSource | EntityManager;

/**
 * Customer limits per KYC tier, agent ceilings and amount bounds per type.
 *
 * Model: check at create, hold at confirm, settle on success.
 * - `checkAtCreate` refuses early (before any money is frozen) and reserves nothing: an intent
 *   that is abandoned, expires or fails would otherwise keep eating its owner's daily room until
 *   someone noticed, and expiry happens in the ledger, out of our sight.
 * - `holdAtConfirm` re-checks under a per-subject lock and records a hold, so concurrent
 *   confirms of one customer or agent cannot together pass a limit each passes alone. The hold
 *   lapses by itself `holdSeconds` after the intent's expiry (`executableUntil`), when the ledger
 *   can no longer execute it: a crash between hold and outcome cannot lock a user out for longer,
 *   and a confirm whose answer was lost keeps its room until nothing can execute it.
 *   A first confirm holds through `planHold` instead: the same hold as one write of the confirm's
 *   statement, written only when the database finds the room (`lockSql` opens its transaction);
 *   `holdAtConfirm` then decides what that write leaves (a refusal to word, a hold already there).
 * - The credited customer's balance cap is not checked here: its data (the balance, the credits
 *   executing) lives in the ledger, which refuses a confirm that would pass it under the account's
 *   lock (limit-rules `balanceCap` gives the figure the ledger is sent; docs/architecture.md "The payment path").
 * - `usageWrite` (payment succeeded) turns the hold into usage, or writes it if there was none;
 *   `release` (payment failed) drops the hold. Both are keyed on the operation id: idempotent.
 * Usage counts the amount (not the fee) a customer pays or withdraws and the cash an agent handles.
 */
@Injectable()
export class LimitsService {
  private readonly logger = new Logger(LimitsService.name);

  constructor(
    private readonly db: DataSource,
    private readonly config: ConfigVersionsService,
    @Inject(LIMITS_CLOCK) private readonly clock: Clock,
  ) {}

  /**
   * At intent creation: throws the first limit broken (4xx with its code); reserves nothing.
   * `active`: the limits version the caller already read for this request (else read here).
   */
  async checkAtCreate(check: LimitCheck, active?: ConfigVersion<'limits'>): Promise<LimitVerdict> {
    const { version, document } = active ?? (await this.config.active('limits'));
    this.warnUnknownTiers(document, check);
    const { usage } = await this.usage(this.db, document, subjectsOf(check), check, this.clock());
    const refusal = firstRefusal(document, check, usage);
    if (refusal) throw refusal;
    return { limitsVersion: version };
  }

  /**
   * At confirm, before calling the ledger: re-checks under the limits in force and holds the room.
   * A second call for the same operation (retried confirm) returns without checking again.
   * `within`: run in the caller's transaction instead of one of its own.
   */
  async holdAtConfirm(
    check: LimitCheck,
    active?: ConfigVersion<'limits'>,
    options: { within?: EntityManager } = {},
  ): Promise<LimitVerdict> {
    const { version, document } = active ?? (await this.config.active('limits'));
    const subjects = subjectsOf(check);
    // Nothing to hold (a merchant paid by no customer's limits, say): no transaction, no lock.
    if (subjects.length === 0) return { limitsVersion: version };
    const hold = async (m: EntityManager): Promise<LimitVerdict> => {
      await m.query(lockStatement(subjects, check.currency));
      // Read after the locks (a statement's snapshot is taken when it starts): the operation's own
      // live hold or usage, and what the subjects used, in one statement.
      // Both statements run after the locks, so each one's time (the database's, see Clock) is later
      // than every hold committed before them.
      const { existing, usage } = await this.usage(m, document, subjects, check, this.clock());
      if (existing) return { limitsVersion: version };
      const refusal = firstRefusal(document, check, usage);
      if (refusal) throw refusal;
      await runWrite(m, holdWrite(check, document, subjects, this.clock()));
      return { limitsVersion: version };
    };
    // `within`: the caller's transaction (the confirm fixes its ledger request in the same one), so
    // the locks are held until that commits; otherwise a transaction of its own.
    return options.within ? hold(options.within) : this.db.transaction(hold);
  }

  /**
   * The confirm's hold as ONE write of the caller's statement (see runWritesTogether), in a
   * transaction that ran the plan's `lock` before that statement (the statement's snapshot is taken
   * after the locks, so it sees every hold committed before them). The write holds the room only when
   * the database finds each subject's usage within `usageRoom` and the operation holds nothing yet;
   * otherwise it writes nothing, and `holdAtConfirm` decides (it words a refusal, or finds the
   * operation's own hold). `onlyIf`: a condition without parameters on earlier writes of that statement.
   * - `hold`: `write()` builds the write. Call it AFTER `lock` ran: the clock that dates the hold
   *   and bounds the usage counted must be read after the locks, or it could be earlier than the
   *   holds of the confirms that had them first (theirs would then not count). The database's clock
   *   is read by the statement itself, which runs after the locks;
   * - `none`: nothing to hold (no customer's limits, no agent's ceiling apply): no lock is needed;
   * - `refused`: refused whatever the usage (bounds of the type, per-operation ceilings, or a limit
   *   smaller than the amount): `holdAtConfirm` words the refusal.
   */
  planHold(check: LimitCheck, active: ConfigVersion<'limits'>, onlyIf: string): HoldPlan {
    const subjects = subjectsOf(check);
    if (subjects.length === 0) return { kind: 'none' };
    const { document } = active;
    if (firstRefusal(document, check, {})) return { kind: 'refused' };
    const room = usageRoom(document, check);
    // Built when called: the clock it reads must be read after the locks.
    return {
      kind: 'hold',
      lock: lockStatement(subjects, check.currency),
      write: () => holdWrite(check, document, subjects, this.clock(), { onlyIf, room }),
    };
  }

  /**
   * The statement taking the per-subject locks of a confirm's hold (`lockStatement`), to open the
   * caller's transaction with; undefined when no subject is held.
   */
  lockSql(check: LimitCheck): string | undefined {
    const subjects = subjectsOf(check);
    return subjects.length > 0 ? lockStatement(subjects, check.currency) : undefined;
  }

  /**
   * The payment succeeded: its amount now counts for good (the hold becomes usage, or usage is
   * written if there was none). Idempotent. A write the confirm runs with the record's success in
   * one statement (see runWritesTogether); none when the operation counts for nobody.
   */
  usageWrite(check: LimitCheck): SqlWrite | undefined {
    const subjects = subjectsOf(check);
    if (subjects.length === 0) return undefined;
    return {
      text: `INSERT INTO orchestrator.limit_usage (operation_id, subject_kind, subject_id, currency, type, amount, status, occurred_at, settled_at)
       SELECT $1, s.kind, s.id, $4, $5, $6, 'SETTLED', ${nowSql('$7')}, ${nowSql('$7')} FROM unnest($2::text[], $3::text[]) AS s(kind, id)
       ON CONFLICT (operation_id, subject_kind, subject_id) DO UPDATE
         SET status = 'SETTLED', settled_at = EXCLUDED.settled_at, held_until = NULL, released_at = NULL
         WHERE limit_usage.status <> 'SETTLED'`,
      params: [...usageRowParams(check, subjects), this.clock()],
    };
  }

  /**
   * The payment failed or was cancelled after a hold: give the room back. Settled usage is never
   * released.
   */
  async release(operationId: string): Promise<void> {
    await queryRows(
      this.db,
      `UPDATE orchestrator.limit_usage SET status = 'RELEASED', released_at = ${nowSql('$2')}, held_until = NULL
        WHERE operation_id = $1 AND status = 'HELD'`,
      [operationId, this.clock()],
    );
  }

  /**
   * In one statement: whether this operation already holds or used room (`existing`), and for each
   * subject the settled usage and live holds of other operations in the current day and month of
   * the limits' time zone.
   */
  private async usage(
    db: Queryable,
    doc: LimitsDocument,
    subjects: Subject[],
    check: LimitCheck,
    now: Date | null,
  ): Promise<{ existing: boolean; usage: { payer?: Usage; agent?: Usage } }> {
    const rows = await queryRows<{ existing: boolean; kind: Subject['kind'] | null; day: string | null; month: string | null }>(
      db,
      `WITH used AS (${usedSql({ kinds: '$1', ids: '$2', currency: '$3', now: nowSql('$4'), timezone: '$5', operationId: '$6' })})
       SELECT EXISTS (SELECT 1 FROM orchestrator.limit_usage WHERE operation_id = $6 AND status <> 'RELEASED') AS existing,
              used.kind, used.day::text AS day, used.month::text AS month
         FROM (SELECT 1) one LEFT JOIN used ON true`,
      [subjects.map((s) => s.kind), subjects.map((s) => s.id), check.currency, now, doc.timezone, check.operationId],
      // every create checks: parsed and planned once per connection
      { prepared: true },
    );
    const of = (kind: Subject['kind']): Usage | undefined => {
      const row = rows.find((r) => r.kind === kind);
      return row ? { day: Number(row.day), month: Number(row.month) } : undefined;
    };
    return { existing: rows[0]?.existing ?? false, usage: { payer: of('CUSTOMER'), agent: of('AGENT') } };
  }

  private warnUnknownTiers(doc: LimitsDocument, check: LimitCheck): void {
    for (const party of [check.payer, check.payee]) {
      if (party && !tierLimits(doc, check.currency, party.kycTier).known) {
        this.logger.warn({ msg: 'unknown KYC tier: the lowest tier applies', kycTier: party.kycTier, userId: party.userId });
      }
    }
  }
}

/**
 * The statement that takes the per-subject locks of a confirm's hold until its transaction ends,
 * without parameters (the keys are escaped literals), so that it may open the transaction in the
 * same round trip (transactionOpenedWith). Subjects are locked in one global order: two confirms
 * sharing an agent or a customer cannot deadlock.
 */
function lockStatement(subjects: Subject[], currency: string): string {
  const keys = subjects.map((s) => `limits:${s.kind}:${s.id}:${currency}`).sort();
  return `SELECT pg_advisory_xact_lock(hashtextextended(k, 0))
      FROM unnest(ARRAY[${keys.map(escapeLiteral).join(', ')}]::text[]) WITH ORDINALITY AS t(k, n) ORDER BY n`;
}

/** `$1`–`$6` of a limit_usage insert for the subjects: operation, kinds, ids, currency, type, amount. */
function usageRowParams(check: LimitCheck, subjects: Subject[]): unknown[] {
  return [check.operationId, subjects.map((s) => s.kind), subjects.map((s) => s.id), check.currency, check.type, check.amount];
}

/**
 * The hold's INSERT, dated `now` (null: the database's clock at the statement; a released hold of
 * the operation is taken again), held for the document's `holdSeconds` past the later of `now` and
 * the check's `executableUntil`: a confirm whose answer was lost may still be executed by the ledger
 * until its intent expires, and its retry is not checked again (the operation holds room already),
 * so the room must stay held, and counted against other payments, until then. With `guard`:
 * only when `onlyIf` holds, the operation holds nothing yet and the database finds each subject's
 * usage within `room`; it then answers a row per subject held.
 */
function holdWrite(
  check: LimitCheck,
  document: LimitsDocument,
  subjects: Subject[],
  now: Date | null,
  guard?: { onlyIf: string; room: ReturnType<typeof usageRoom> },
): SqlWrite {
  const params: unknown[] = [...usageRowParams(check, subjects), now, document.holdSeconds, check.executableUntil ?? null];
  let where = '';
  if (guard) {
    const bound = (s: Subject) => (s.kind === 'CUSTOMER' ? guard.room.payer : guard.room.agent);
    params.push(
      document.timezone,
      subjects.map((s) => bound(s)?.day ?? null),
      subjects.map((s) => bound(s)?.month ?? null),
    );
    where = `WHERE ${guard.onlyIf}
        AND NOT EXISTS (SELECT 1 FROM orchestrator.limit_usage WHERE operation_id = $1 AND status <> 'RELEASED')
        AND NOT EXISTS (
          SELECT 1 FROM (${usedSql({ kinds: '$2', ids: '$3', currency: '$4', now: nowSql('$7'), timezone: '$10', operationId: '$1' })}) used
            JOIN unnest($2::text[], $3::text[], $11::bigint[], $12::bigint[]) AS r(kind, id, day, month)
              ON r.kind = used.kind AND r.id = used.id
           WHERE used.day > r.day OR used.month > r.month)`;
  }
  return {
    text: `INSERT INTO orchestrator.limit_usage (operation_id, subject_kind, subject_id, currency, type, amount, status, occurred_at, held_until)
     SELECT $1, s.kind, s.id, $4, $5, $6, 'HELD', ${nowSql('$7')},
            GREATEST(${nowSql('$7')}, $9::timestamptz) + make_interval(secs => $8::float8)
       FROM unnest($2::text[], $3::text[]) AS s(kind, id)
     ${where}
     ON CONFLICT (operation_id, subject_kind, subject_id) DO UPDATE
       SET status = 'HELD', occurred_at = EXCLUDED.occurred_at, held_until = EXCLUDED.held_until, released_at = NULL
       WHERE limit_usage.status = 'RELEASED'
     RETURNING subject_kind`,
    params,
  };
}

/**
 * Per subject (two parallel arrays of kinds and ids): what it used in the day and month windows of
 * `now`, other operations only (usage-windows.sql says what counts). The arguments are SQL
 * placeholders of the caller's statement.
 */
function usedSql(p: { kinds: string; ids: string; currency: string; now: string; timezone: string; operationId: string }): string {
  return `SELECT s.kind, s.id, COALESCE(sum(u.amount) FILTER (WHERE u.occurred_at >= b.day_start), 0) AS day,
                 COALESCE(sum(u.amount), 0) AS month
            FROM unnest(${p.kinds}::text[], ${p.ids}::text[]) AS s(kind, id)
           CROSS JOIN (${windowBoundsSql(p.now, p.timezone)}) b
            LEFT JOIN orchestrator.limit_usage u
              ON u.subject_kind = s.kind AND u.subject_id = s.id AND u.currency = ${p.currency} AND u.operation_id <> ${p.operationId}
             AND ${countedUsageSql(p.now)}
           GROUP BY s.kind, s.id`;
}

/**
 * Whose usage an operation consumes: the paying customer's and the agent's. A credited customer is
 * bounded by its balance cap only, which the ledger checks.
 */
function subjectsOf(check: LimitCheck): Subject[] {
  const subjects: Subject[] = [];
  if (check.payer) subjects.push({ kind: 'CUSTOMER', id: check.payer.userId });
  if (check.agent) subjects.push({ kind: 'AGENT', id: check.agent.agentId });
  return subjects;
}

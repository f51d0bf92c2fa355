import { Inject, Injectable, Logger } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import { queryRows } from '@mm/platform';
import type { ConfigVersion } from '../config-api/config-sections';
import { ConfigVersionsService } from '../config-api/config-versions.service';
import type { LimitsDocument } from './limits-document';
import { type Usage, firstRefusal, tierLimits } from './limit-rules';
import { countedUsageSql, windowBoundsSql } from './usage-windows.sql';
import type { IncomingOutcome, LimitCheck, LimitVerdict, PayeeLedger } from './limits.types';

export const LIMITS_CLOCK = Symbol('LIMITS_CLOCK');
export type Clock = () => Date;

type Subject = { kind: 'CUSTOMER' | 'AGENT'; id: string };
type Queryable = DataSource | EntityManager;

/**
 * Customer limits per KYC tier, agent ceilings and amount bounds per type.
 *
 * Model: check at create, hold at confirm, settle on success.
 * - `checkAtCreate` refuses early (before any money is frozen) and reserves nothing: an intent
 *   that is abandoned, expires or fails would otherwise keep eating its owner's daily room until
 *   someone noticed, and expiry happens in the ledger, out of our sight.
 * - `holdAtConfirm` re-checks under a per-subject lock and records a short hold, so concurrent
 *   confirms of one customer or agent cannot together pass a limit each passes alone. The hold
 *   lapses by itself after `holdSeconds` (a crash between hold and outcome cannot lock a user out).
 *   The credited customer is a subject too (kind PAYEE): its balance is read from the ledger under
 *   its lock, and the credit is held until the ledger has it, so concurrent credits cannot together
 *   pass the balance cap. That hold does not lapse on a timer: the ledger's outcome ends it (a
 *   credit whose outcome is unknown may still land), and the intent's own expiry bounds it.
 * - `recordUsage` (payment succeeded) turns the hold into usage, or writes it if there was none;
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
   * `within`: run in the caller's transaction instead of one of its own. `payeeLedger`: required
   * when the check has a payee (the balance cap is checked with what it reads, under the lock).
   */
  async holdAtConfirm(
    check: LimitCheck,
    active?: ConfigVersion<'limits'>,
    options: { within?: EntityManager; payeeLedger?: PayeeLedger } = {},
  ): Promise<LimitVerdict> {
    const { version, document } = active ?? (await this.config.active('limits'));
    const { within, payeeLedger } = options;
    if (check.payee && !payeeLedger) throw new Error('holdAtConfirm: a check with a payee needs the payee ledger (balance cap)');
    const subjects = subjectsOf(check);
    const payee = check.payee;
    const hold = async (m: EntityManager): Promise<LimitVerdict> => {
      // Subjects locked in one global order (the payee's key among them): two confirms sharing an
      // agent, a customer or a recipient cannot deadlock.
      const keys = [...subjects, ...(payee ? [{ kind: 'PAYEE', id: payee.userId }] : [])]
        .map((s) => `limits:${s.kind}:${s.id}:${check.currency}`)
        .sort();
      for (const key of keys) await queryRows(m, `SELECT pg_advisory_xact_lock(hashtextextended($1, 0))`, [key]);
      // Read after the locks (a statement's snapshot is taken when it starts): the operation's own
      // live hold or usage, and what the subjects used, in one statement.
      const now = this.clock();
      const { existing, usage } = await this.usage(m, document, subjects, check, now);
      if (existing) return { limitsVersion: version };
      // Everything but the balance cap first: no ledger reads for a payment refused anyway.
      const refusal = firstRefusal(document, { ...check, payee: undefined }, usage);
      if (refusal) throw refusal;
      if (payee && payeeLedger) {
        const { balance, incoming } = await this.payeeStanding(m, check, payee.userId, payeeLedger, now);
        const capRefusal = firstRefusal(document, { ...check, payee: { ...payee, currentBalance: balance, incoming } }, usage);
        if (capRefusal) throw capRefusal;
      }
      const heldUntil = new Date(now.getTime() + document.holdSeconds * 1000);
      for (const subject of subjects) {
        await queryRows(
          m,
          `INSERT INTO orchestrator.limit_usage (operation_id, subject_kind, subject_id, currency, type, amount, status, occurred_at, held_until)
           VALUES ($1, $2, $3, $4, $5, $6, 'HELD', $7, $8)
           ON CONFLICT (operation_id, subject_kind, subject_id) DO UPDATE
             SET status = 'HELD', occurred_at = EXCLUDED.occurred_at, held_until = EXCLUDED.held_until, released_at = NULL
             WHERE limit_usage.status = 'RELEASED'`,
          [check.operationId, subject.kind, subject.id, check.currency, check.type, check.amount, now, heldUntil],
        );
      }
      if (payee && payeeLedger) {
        // The incoming credit: no held_until, the ledger's outcome ends it (see payeeStanding).
        await queryRows(
          m,
          `INSERT INTO orchestrator.limit_usage (operation_id, subject_kind, subject_id, currency, type, amount, status, occurred_at, ledger_intent_id)
           VALUES ($1, 'PAYEE', $2, $3, $4, $5, 'HELD', $6, $7)
           ON CONFLICT (operation_id, subject_kind, subject_id) DO UPDATE
             SET status = 'HELD', occurred_at = EXCLUDED.occurred_at, ledger_intent_id = EXCLUDED.ledger_intent_id, released_at = NULL
             WHERE limit_usage.status = 'RELEASED'`,
          [check.operationId, payee.userId, check.currency, check.type, check.amount, now, payeeLedger.intentId],
        );
      }
      return { limitsVersion: version };
    };
    // `within`: the caller's transaction (the confirm fixes its ledger request in the same one), so
    // the locks are held until that commits; otherwise a transaction of its own.
    return within ? hold(within) : this.db.transaction(hold);
  }

  /**
   * Under the payee's lock: its ledger balance and the credits of other confirms held for it that
   * the balance does not contain yet. A held credit is between its check and its ledger commit, or
   * committed but not yet recorded here (the confirm is on its way back, or died): the ledger tells
   * which. Its intent is asked before the balance is read and again after; one that committed in
   * between makes the balance be read again, so no credit is counted twice or missed. Credits
   * found committed or ended are closed here (SETTLED / RELEASED), in the caller's transaction.
   */
  private async payeeStanding(
    m: EntityManager,
    check: LimitCheck,
    payeeId: string,
    ledger: PayeeLedger,
    now: Date,
  ): Promise<{ balance: number; incoming: number }> {
    const held = await queryRows<{ operation_id: string; ledger_intent_id: string; amount: string }>(
      m,
      `SELECT operation_id, ledger_intent_id, amount::text FROM orchestrator.limit_usage
        WHERE subject_kind = 'PAYEE' AND subject_id = $1 AND currency = $2 AND status = 'HELD' AND operation_id <> $3`,
      [payeeId, check.currency, check.operationId],
    );
    const applied: string[] = [];
    const ended: string[] = [];
    // Keeps the credits still PENDING; the others go to `applied` or `ended`.
    const sort = async (rows: typeof held): Promise<typeof held> => {
      const outcomes: IncomingOutcome[] = await Promise.all(rows.map((r) => ledger.outcome(r.ledger_intent_id)));
      rows.forEach((r, i) => {
        if (outcomes[i] === 'APPLIED') applied.push(r.operation_id);
        if (outcomes[i] === 'VOID') ended.push(r.operation_id);
      });
      return rows.filter((_, i) => outcomes[i] === 'PENDING');
    };
    let pending = await sort(held);
    let balance: number;
    for (;;) {
      balance = await ledger.balance();
      const appliedBefore = applied.length;
      pending = await sort(pending);
      // Pending after the read means pending during it: the balance holds none of them.
      if (applied.length === appliedBefore) break;
    }
    if (applied.length > 0) {
      await queryRows(
        m,
        `UPDATE orchestrator.limit_usage SET status = 'SETTLED', settled_at = $3, held_until = NULL
          WHERE operation_id = ANY($1) AND subject_kind = 'PAYEE' AND subject_id = $2 AND status = 'HELD'`,
        [applied, payeeId, now],
      );
    }
    if (ended.length > 0) {
      await queryRows(
        m,
        `UPDATE orchestrator.limit_usage SET status = 'RELEASED', released_at = $3, held_until = NULL
          WHERE operation_id = ANY($1) AND subject_kind = 'PAYEE' AND subject_id = $2 AND status = 'HELD'`,
        [ended, payeeId, now],
      );
    }
    return { balance, incoming: pending.reduce((sum, r) => sum + Number(r.amount), 0) };
  }

  /**
   * The payment succeeded: its amount now counts for good. Safe to call any number of times. `db`:
   * the caller's transaction (the confirm records the success, the usage and the SMS together).
   */
  async recordUsage(check: LimitCheck, db: Queryable = this.db): Promise<void> {
    const now = this.clock();
    // The credit is in the payee's balance now: its incoming hold stops counting. (No hold, nothing
    // to write: the balance itself carries the credit from here on.)
    await queryRows(
      db,
      `UPDATE orchestrator.limit_usage SET status = 'SETTLED', settled_at = $2, held_until = NULL
        WHERE operation_id = $1 AND subject_kind = 'PAYEE' AND status = 'HELD'`,
      [check.operationId, now],
    );
    for (const subject of subjectsOf(check)) {
      await queryRows(
        db,
        `INSERT INTO orchestrator.limit_usage (operation_id, subject_kind, subject_id, currency, type, amount, status, occurred_at, settled_at)
         VALUES ($1, $2, $3, $4, $5, $6, 'SETTLED', $7, $7)
         ON CONFLICT (operation_id, subject_kind, subject_id) DO UPDATE
           SET status = 'SETTLED', settled_at = EXCLUDED.settled_at, held_until = NULL, released_at = NULL
           WHERE limit_usage.status <> 'SETTLED'`,
        [check.operationId, subject.kind, subject.id, check.currency, check.type, check.amount, now],
      );
    }
  }

  /**
   * The payment failed or was cancelled after a hold: give the room back (the payee's incoming hold
   * too). Settled usage is never released.
   */
  async release(operationId: string): Promise<void> {
    await queryRows(
      this.db,
      `UPDATE orchestrator.limit_usage SET status = 'RELEASED', released_at = $2, held_until = NULL
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
    now: Date,
  ): Promise<{ existing: boolean; usage: { payer?: Usage; agent?: Usage } }> {
    const rows = await queryRows<{ existing: boolean; kind: Subject['kind'] | null; day: string | null; month: string | null }>(
      db,
      `WITH bounds AS (${windowBoundsSql('$4::timestamptz', '$5')}),
       subjects AS (SELECT * FROM unnest($1::text[], $2::text[]) AS s(kind, id)),
       used AS (
         SELECT s.kind, COALESCE(sum(u.amount) FILTER (WHERE u.occurred_at >= b.day_start), 0)::text AS day,
                COALESCE(sum(u.amount), 0)::text AS month
           FROM subjects s CROSS JOIN bounds b
           LEFT JOIN orchestrator.limit_usage u
             ON u.subject_kind = s.kind AND u.subject_id = s.id AND u.currency = $3 AND u.operation_id <> $6
            AND ${countedUsageSql('$4::timestamptz')}
          GROUP BY s.kind, s.id)
       SELECT EXISTS (SELECT 1 FROM orchestrator.limit_usage WHERE operation_id = $6 AND status <> 'RELEASED') AS existing,
              used.kind, used.day, used.month
         FROM (SELECT 1) one LEFT JOIN used ON true`,
      [subjects.map((s) => s.kind), subjects.map((s) => s.id), check.currency, now, doc.timezone, check.operationId],
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
 * Whose usage an operation consumes: the paying customer's and the agent's. A payee is bounded by
 * its balance cap only: its incoming hold (kind PAYEE) is handled apart and never counts as usage.
 */
function subjectsOf(check: LimitCheck): Subject[] {
  const subjects: Subject[] = [];
  if (check.payer) subjects.push({ kind: 'CUSTOMER', id: check.payer.userId });
  if (check.agent) subjects.push({ kind: 'AGENT', id: check.agent.agentId });
  return subjects;
}

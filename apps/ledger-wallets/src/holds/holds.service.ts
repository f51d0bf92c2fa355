import { Injectable } from '@nestjs/common';
import { AppException } from '@mm/errors';
import { currentContext } from '@mm/platform';
import { LedgerDb } from '../db/ledger-db.service';
import { moneyLockKeys } from '../db/lock-keys';
import { toMoney } from '../db/money';
import { isUniqueViolation } from '../db/sql-errors';
import { requestHash } from '../idempotency/canonical-hash';
import { insufficientMessage } from '../intents/intent-view';
import { CorrectionsSettings } from '../corrections/corrections.settings';
import { type OperatorIdentity, OperatorTokens } from '../corrections/operator-tokens.service';
import type { ListHoldsQuery, PlaceHoldDto, ReleaseHoldDto } from './dto/hold.dto';
import { HOLD_COLUMNS, type HoldRow, type HoldView, toHoldView } from './hold-view';

/**
 * Named holds: an operator's hold on part of an account's available balance, kept as a row with an
 * id so that the very hold placed is the one released. Placing moves the amount from available to
 * frozen, releasing moves it back; each is one SERIALIZABLE transaction with the account locked,
 * journaled in `operator_actions` (FREEZE / UNFREEZE with the hold's id). The operator is the
 * bearer of the access token (a maker role, as for the legacy freeze); `requestedBy` names who
 * asked for it when the orchestrator's maker-checker engine carries it out for a checker.
 */
@Injectable()
export class HoldsService {
  constructor(
    private readonly db: LedgerDb,
    private readonly settings: CorrectionsSettings,
  ) {}

  async place(dto: PlaceHoldDto, operator: OperatorIdentity): Promise<{ view: HoldView; replayed: boolean }> {
    OperatorTokens.require(operator, this.settings.makerRoles, 'place a hold');
    const key = dto.idempotencyKey.toLowerCase();
    const accountId = dto.accountId.toLowerCase();
    const hash = requestHash({ accountId, amount: dto.amount, reason: dto.reason, requestedBy: dto.requestedBy ?? null });
    const existing = await this.row('idempotency_key = $1', key);
    if (existing) return { view: this.replay(existing, hash), replayed: true };
    const correlationId = currentContext()?.correlationId ?? null;
    try {
      const placed = await this.db.withSession((session) =>
        this.db.serializable(session, moneyLockKeys([accountId]), async (s) => {
          const [account] = await s.query<{ currency: string; available_balance: string }>(
            `SELECT currency, available_balance::text FROM ledger.accounts WHERE id = $1 FOR UPDATE`,
            [accountId],
          );
          if (!account) throw new AppException('ACCOUNT_NOT_FOUND');
          const available = toMoney(account.available_balance);
          if (available < dto.amount) throw new AppException('INSUFFICIENT_BALANCE', insufficientMessage(available, dto.amount));
          const [row] = await s.query<HoldRow>(
            `WITH h AS (
               INSERT INTO ledger.holds (idempotency_key, request_hash, account_id, amount, currency, reason, status, placed_by, placed_roles,
                                         requested_by, correlation_id)
               VALUES ($1, $2, $3, $4, $5, $6, 'ACTIVE', $7, $8, $9, $10) RETURNING *),
             a AS (
               UPDATE ledger.accounts SET available_balance = available_balance - $4, frozen_balance = frozen_balance + $4, updated_at = now()
               WHERE id = $3),
             j AS (
               INSERT INTO ledger.operator_actions (account_id, action, amount, reason, operator_id, operator_roles, correlation_id, hold_id)
               SELECT account_id, 'FREEZE', amount, reason, placed_by, placed_roles, correlation_id, id FROM h)
             SELECT ${HOLD_COLUMNS} FROM h`,
            [
              key,
              hash,
              accountId,
              dto.amount,
              account.currency.trim(),
              dto.reason,
              operator.id,
              operator.roles,
              dto.requestedBy ?? null,
              correlationId,
            ],
          );
          return row;
        }),
      );
      return { view: toHoldView(placed), replayed: false };
    } catch (error) {
      // the same key placed concurrently: the first one is the hold
      if (!isUniqueViolation(error, 'UQ_holds_idempotency_key')) throw error;
      const raced = await this.row('idempotency_key = $1', key);
      return { view: this.replay(raced!, hash), replayed: true };
    }
  }

  async release(id: string, dto: ReleaseHoldDto, operator: OperatorIdentity): Promise<HoldView> {
    OperatorTokens.require(operator, this.settings.makerRoles, 'release a hold');
    const key = dto.idempotencyKey.toLowerCase();
    const hold = await this.row('id = $1', id);
    if (!hold) throw new AppException('HOLD_NOT_FOUND');
    if (hold.status === 'RELEASED') return this.releasedAlready(hold, key);
    const correlationId = currentContext()?.correlationId ?? null;
    const released = await this.db.withSession((session) =>
      this.db.serializable(session, moneyLockKeys([hold.account_id]), async (s) => {
        const [locked] = await s.query<HoldRow>(`SELECT ${HOLD_COLUMNS} FROM ledger.holds WHERE id = $1 FOR UPDATE`, [id]);
        if (locked.status === 'RELEASED') return locked;
        const [account] = await s.query<{ frozen_balance: string }>(
          `SELECT frozen_balance::text FROM ledger.accounts WHERE id = $1 FOR UPDATE`,
          [hold.account_id],
        );
        const amount = toMoney(locked.amount);
        if (toMoney(account.frozen_balance) < amount) {
          throw new AppException('INSUFFICIENT_BALANCE', `Insufficient frozen balance: frozen ${account.frozen_balance}, hold ${amount}`);
        }
        const [row] = await s.query<HoldRow>(
          `WITH h AS (
             UPDATE ledger.holds SET status = 'RELEASED', released_by = $2, released_roles = $3, release_requested_by = $4, release_key = $5,
               release_reason = $6, released_at = now()
             WHERE id = $1 AND status = 'ACTIVE' RETURNING *),
           a AS (
             UPDATE ledger.accounts SET available_balance = available_balance + $7, frozen_balance = frozen_balance - $7, updated_at = now()
             WHERE id = (SELECT account_id FROM h)),
           j AS (
             INSERT INTO ledger.operator_actions (account_id, action, amount, reason, operator_id, operator_roles, correlation_id, hold_id)
             SELECT account_id, 'UNFREEZE', amount, release_reason, released_by, released_roles, $8, id FROM h)
           SELECT ${HOLD_COLUMNS} FROM h`,
          [id, operator.id, operator.roles, dto.requestedBy ?? null, key, dto.reason, amount, correlationId],
        );
        return row;
      }),
    );
    // released by someone else between the first read and the lock: the same rule as before it
    if (released.release_key !== key) return this.releasedAlready(released, key);
    return toHoldView(released);
  }

  async get(id: string): Promise<HoldView> {
    const hold = await this.row('id = $1', id);
    if (!hold) throw new AppException('HOLD_NOT_FOUND');
    return toHoldView(hold);
  }

  /** The hold placed under `key`, or else the one released under it (404 HOLD_NOT_FOUND). */
  async byKey(key: string): Promise<HoldView> {
    const hold = (await this.row('idempotency_key = $1', key.toLowerCase())) ?? (await this.row('release_key = $1', key.toLowerCase()));
    if (!hold) throw new AppException('HOLD_NOT_FOUND');
    return toHoldView(hold);
  }

  /** Newest first; by account and status when asked. */
  async list(query: ListHoldsQuery): Promise<HoldView[]> {
    const rows = await this.db.query<HoldRow>(
      `SELECT ${HOLD_COLUMNS} FROM ledger.holds
       WHERE ($1::uuid IS NULL OR account_id = $1) AND ($2::text IS NULL OR status = $2)
       ORDER BY placed_at DESC, id LIMIT $3`,
      [query.accountId?.toLowerCase() ?? null, query.status ?? null, query.limit ?? 50],
    );
    return rows.map(toHoldView);
  }

  /** A release asked again under the key that released it answers the hold; under another key it is too late. */
  private releasedAlready(hold: HoldRow, key: string): HoldView {
    if (hold.release_key === key) return toHoldView(hold);
    throw new AppException('HOLD_ALREADY_RELEASED', `Hold ${hold.id} was released on ${toHoldView(hold).released!.at}`);
  }

  private replay(existing: HoldRow, hash: string): HoldView {
    if (existing.request_hash !== hash)
      throw new AppException('IDEMPOTENCY_KEY_CONFLICT', 'This idempotency key was used for another hold');
    return toHoldView(existing);
  }

  private async row(condition: string, value: string): Promise<HoldRow | undefined> {
    const [row] = await this.db.query<HoldRow>(`SELECT ${HOLD_COLUMNS} FROM ledger.holds WHERE ${condition}`, [value]);
    return row;
  }
}

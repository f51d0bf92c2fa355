import { Injectable } from '@nestjs/common';
import { AppException, type ErrorCode } from '@mm/errors';
import type { DbSession } from '../db/db-session';
import { LedgerDb } from '../db/ledger-db.service';
import { moneyLockKeys } from '../db/lock-keys';
import { toMoney } from '../db/money';
import { isUniqueViolation } from '../db/sql-errors';
import { type IdempotentResponse, IdempotencyService, type RecordResponse } from '../idempotency/idempotency.service';
import { requestHash } from '../idempotency/canonical-hash';
import { LedgerWalletsConfig } from '../ledger-wallets.config';
import type { CreateIntentDto } from './dto/create-intent.dto';
import { type IntentEventView, type IntentRow, type IntentView, insufficientMessage, toIntentView } from './intent-view';

@Injectable()
export class IntentsService {
  constructor(
    private readonly db: LedgerDb,
    private readonly idempotency: IdempotencyService,
    private readonly config: LedgerWalletsConfig,
  ) {}

  /**
   * Creates the intent (its first state, CREATED; docs/ledger.md "Intents"): freezes amount + fee
   * on the source account inside its lock, stores the idempotency key, locks the QR, writes the
   * first event, all in one transaction. The same key with the same body answers the first response
   * again; with another body 422. With `createBy`, a request that was not created before that time
   * is refused (400 INTENT_CREATE_DEADLINE_PASSED, nothing held) while a replay still gets its
   * stored answer. An account whose wallet is not ACTIVE is refused (400 ACCOUNT_NOT_ALLOWED, nothing held).
   */
  async create(dto: CreateIntentDto): Promise<IdempotentResponse<IntentView>> {
    // One spelling of the UUID (as holds keep theirs): a retry that sends it in capitals is the same request.
    const key = dto.idempotencyKey?.toLowerCase();
    if (!key) throw new AppException('IDEMPOTENCY_KEY_MISSING', 'idempotencyKey is required to create an intent');
    const hash = requestHash({ ...dto, idempotencyKey: key });
    return this.db.withSession((session) =>
      this.idempotency.run(session, 'intent.create', key, hash, async (record) => {
        const body = await this.createOn(session, dto, key, record);
        return { status: 201, body };
      }),
    );
  }

  /** Creation on a session the caller holds (the legacy adapter runs its three steps on one connection). */
  async createOn(session: DbSession, dto: CreateIntentDto, key: string, record?: RecordResponse): Promise<IntentView> {
    if (dto.sourceAccountId.toLowerCase() === dto.destinationAccountId.toLowerCase()) throw new AppException('SAME_ACCOUNT');
    // Whose OTP the intent needs is fixed now, with the intent: a proof for anyone else is refused later.
    if (Boolean(dto.requiresOtp) !== Boolean(dto.otpUserId)) throw new AppException('CONSENT_OTP_USER_REQUIRED');
    // The two accounts, and what the database's account rules (ledger.account_rules_refusal, the
    // confirm's own) say of an intent of this type between them.
    const accounts = await session.query<{
      id: string;
      currency: string;
      account_type: string;
      balance: string;
      wallet_id: string;
      rule_refusal: ErrorCode | null;
    }>(
      `SELECT a.id, a.currency, a.account_type, a.balance, a.wallet_id,
              ledger.account_rules_refusal($1, s.account_type, d.account_type, s.wallet_id, d.wallet_id, 0, NULL, 0, NULL, NULL, NULL) AS rule_refusal
         FROM ledger.accounts s, ledger.accounts d, ledger.accounts a
        WHERE s.id = $2 AND d.id = $3 AND a.id IN (s.id, d.id)`,
      [dto.type, dto.sourceAccountId, dto.destinationAccountId],
    );
    if (accounts.length !== 2) throw new AppException('ACCOUNT_NOT_FOUND', 'Source or destination account not found');
    if (accounts.some((a) => a.currency !== dto.currency)) throw new AppException('CURRENCY_MISMATCH');
    const byId = new Map(accounts.map((a) => [a.id, a]));
    const sourceAccount = byId.get(dto.sourceAccountId.toLowerCase())!;
    const destination = byId.get(dto.destinationAccountId.toLowerCase())!;
    if (destination.rule_refusal) {
      throw new AppException(
        destination.rule_refusal,
        `${dto.type} cannot move money from a ${sourceAccount.account_type} account to a ${destination.account_type} account`,
      );
    }
    // An early answer for a payment that cannot fit the payee's cap now. Nothing is reserved on the
    // destination (read without its lock): the confirm's check, on the locked row, is the one that binds.
    if (dto.payeeBalanceCap !== undefined && toMoney(destination.balance) + dto.amount > dto.payeeBalanceCap) {
      throw new AppException('LIMIT_BALANCE_CAP_EXCEEDED');
    }
    // An end already past would hold money for an intent nobody can confirm.
    if (dto.expiresAt !== undefined && Date.parse(dto.expiresAt) <= Date.now()) {
      throw new AppException('INTENT_EXPIRED', 'The requested end of the intent (expiresAt) is already past');
    }
    const fee = dto.fee ?? 0;
    const total = dto.amount + fee;
    if (!Number.isSafeInteger(total)) throw new AppException('AMOUNT_OUT_OF_RANGE', 'amount + fee exceeds 2^53 − 1');

    // Only the source account's balances change: it is the only account lock.
    return this.db.serializable(session, moneyLockKeys([dto.sourceAccountId]), async (s) => {
      // A deadline for creating (createBy) is judged here, once, under the source account's lock and
      // on the clock of this moment (not the transaction's start): the request may have waited for
      // the lock or been replayed after a serialization failure, seconds after it arrived. It is
      // judged before the balance. Only a request the idempotency layer did not answer gets here: a
      // creation that already happened under this key replays its stored 201 however late. Requests
      // with one key are serialized by the key's lock, so once one is refused none under that key
      // can be created afterwards (time only moves forward): the caller may treat the refusal as
      // final. An intent under this key whose idempotency record is gone (after 48 h) is not refused
      // for the deadline (the NOT EXISTS): that request goes on to the key's uniqueness
      // (IDEMPOTENCY_KEY_CONFLICT), so this refusal always means no intent exists under the key.
      // Without createBy the expression is a constant: no clock read, no index lookup.
      const late = dto.createBy
        ? `clock_timestamp() >= $3::timestamptz
             AND NOT EXISTS (SELECT 1 FROM ledger.transaction_intents WHERE idempotency_key = $4)`
        : 'false';
      // The status of both accounts' wallets, read in this transaction, since a wallet closed before
      // it must hold nothing. Closing a wallet (WalletsService.closeUnused) takes the advisory locks of
      // all its accounts first: for the source, this lock orders the two and the snapshot, taken
      // after it, holds the status as it is now. The destination is not locked here (concurrent
      // payments to one merchant must not queue on creation): the close and this creation are both
      // SERIALIZABLE, each reads what the other writes (the wallet's status; the intents on the
      // account), so PostgreSQL fails one of them (40001) if they overlap, and its replay sees the other.
      // The destination's wallet is read by its id (an account never changes wallet), not through the
      // account's row, which every confirm crediting a busy merchant writes: reading that row here
      // would tie each creation to those confirms and send more of them back to retry.
      const source = await s.one<{
        available_balance: string;
        late: boolean;
        source_wallet_status: string;
        destination_wallet_status: string;
      }>(
        // The outer select is evaluated once the row lock is held; a clock read in the locking select
        // itself would be taken before the wait.
        `SELECT l.available_balance, ${late} AS late,
                (SELECT w.status FROM ledger.wallets w WHERE w.id = l.wallet_id) AS source_wallet_status,
                (SELECT w.status FROM ledger.wallets w WHERE w.id = $2) AS destination_wallet_status
           FROM (SELECT available_balance, wallet_id FROM ledger.accounts WHERE id = $1 FOR UPDATE) l`,
        dto.createBy ? [dto.sourceAccountId, destination.wallet_id, dto.createBy, key] : [dto.sourceAccountId, destination.wallet_id],
      );
      if (source?.late) {
        throw new AppException(
          'INTENT_CREATE_DEADLINE_PASSED',
          'The deadline for creating this intent (createBy) has passed: nothing was held',
        );
      }
      // Only an ACTIVE wallet sends or receives money (docs/ledger.md "Wallets and accounts"); the
      // confirm refuses the same on its locked rows (ledger.execute_confirm). After the deadline: that
      // refusal is the one that tells its caller no intent exists under the key.
      for (const [side, status] of [
        ['source', source!.source_wallet_status],
        ['destination', source!.destination_wallet_status],
      ] as const) {
        if (status !== 'ACTIVE') {
          throw new AppException(
            'ACCOUNT_NOT_ALLOWED',
            `The ${side} account's wallet is ${status}: only an ACTIVE wallet sends or receives money; nothing was held`,
          );
        }
      }
      const available = toMoney(source!.available_balance);
      if (available < total) throw new AppException('INSUFFICIENT_BALANCE', insufficientMessage(available, total));
      let row: IntentRow | undefined;
      try {
        row = await s.one<IntentRow>(
          `WITH i AS (
             INSERT INTO ledger.transaction_intents (type, status, idempotency_key, source_account_id, destination_account_id, amount, fee,
               frozen_amount, currency, requires_otp, qr_token, description, initiated_by, agent_id, metadata, expires_at, otp_user_id)
             VALUES ($1, 'CREATED', $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14::jsonb,
               LEAST(now() + make_interval(secs => $15), $20::timestamptz), $19)
             RETURNING *),
           a AS (
             UPDATE ledger.accounts SET available_balance = available_balance - $7, frozen_balance = frozen_balance + $7, updated_at = now()
             WHERE id = $3),
           e AS (
             INSERT INTO ledger.intent_events (intent_id, from_status, to_status, event, actor_id, ip_address, user_agent, metadata)
             SELECT i.id, NULL, 'CREATED', 'intent_created', $12, $16, $17, $18::jsonb FROM i),
           q AS (
             INSERT INTO ledger.intent_qr_locks (qr_token, intent_id) SELECT $10, i.id FROM i WHERE $10::text IS NOT NULL)
           SELECT * FROM i`,
          [
            dto.type,
            key,
            dto.sourceAccountId,
            dto.destinationAccountId,
            dto.amount,
            fee,
            total,
            dto.currency,
            dto.requiresOtp ?? false,
            dto.qrToken ?? null,
            dto.description ?? null,
            dto.actor.id,
            dto.agentId ?? null,
            JSON.stringify(dto.metadata ?? {}),
            this.config.LEDGER_INTENT_TTL_SECONDS,
            dto.actor.ip ?? null,
            dto.actor.userAgent ?? null,
            JSON.stringify({ frozenAmount: total, qrLocked: Boolean(dto.qrToken) }),
            dto.otpUserId ?? null,
            // LEAST ignores a NULL: without expiresAt, the ledger's own lifetime.
            dto.expiresAt ?? null,
          ],
        );
      } catch (error) {
        if (isUniqueViolation(error, 'intent_qr_locks_pkey')) throw new AppException('QR_TOKEN_LOCKED');
        // The key outlived its 48 h idempotency record: still refused by uniqueness (rule 1).
        if (isUniqueViolation(error, 'UQ_transaction_intents_idempotency_key')) throw new AppException('IDEMPOTENCY_KEY_CONFLICT');
        throw error;
      }
      const view = toIntentView(row!);
      if (record) await record(s, 201, view);
      return view;
    });
  }

  async get(id: string): Promise<IntentView> {
    const [row] = await this.db.query<IntentRow>(
      `SELECT i.*, t.reference_id FROM ledger.transaction_intents i LEFT JOIN ledger.transactions t ON t.id = i.transaction_id WHERE i.id = $1`,
      [id],
    );
    if (!row) throw new AppException('INTENT_NOT_FOUND');
    return toIntentView(row);
  }

  async events(id: string): Promise<IntentEventView[]> {
    await this.get(id);
    const rows = await this.db.query<IntentEventView>(
      `SELECT id, from_status AS "fromStatus", to_status AS "toStatus", event, actor_id AS "actorId", ip_address AS "ipAddress",
              user_agent AS "userAgent", metadata, created_at AS "createdAt"
       FROM ledger.intent_events WHERE intent_id = $1 ORDER BY created_at, id`,
      [id],
    );
    return rows;
  }
}

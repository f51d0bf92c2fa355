import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { AppException } from '@mm/errors';
import { currentContext } from '@mm/platform';
import { LedgerDb } from '../db/ledger-db.service';
import type { DbSession } from '../db/db-session';
import { moneyLockKeys } from '../db/lock-keys';
import { toMoney } from '../db/money';
import { pairEntries } from '../execution/double-entry';
import { newReferenceId } from '../execution/reference-id';
import { type IdempotentResponse, IdempotencyService } from '../idempotency/idempotency.service';
import { requestHash } from '../idempotency/canonical-hash';
import { insufficientMessage } from '../intents/intent-view';
import { LedgerWalletsConfig } from '../ledger-wallets.config';
import { ACCOUNT_COLUMNS, type AccountRow, type AccountView, toAccountView } from '../wallets/account-view';
import { TechnicalAccountsService } from '../wallets/technical-accounts.service';
import type { BalanceAdjustmentDto, BalanceOperation } from './dto/balance-adjustment.dto';

/** Who performs a legacy balance operation: a verified operator (holds) or the test-funding caller. */
export interface LegacyOperator {
  id: string;
  roles: string[];
}

export interface BalanceAdjustmentResult {
  account: AccountView;
  operation: BalanceOperation;
  amount: number;
  /** the adjustment transaction (add / subtract); null for freeze / unfreeze */
  transactionId: string | null;
  referenceId: string | null;
}

/**
 * The deprecated balance endpoints, reworked (spec 2, issue 14): `freeze` and `unfreeze` are an
 * operator's holds, moving money between available and frozen (balance unchanged; `unfreeze` cannot
 * release what active intents hold). `add` and `subtract` exist only as the documented test-funding
 * flow (NODE_ENV=test, never production; the controller refuses them otherwise): a signed
 * adjustment against the currency's suspense account, so `balance = credits − debits` holds. Real
 * corrections go through maker-checker (corrections/). Every operation is journaled in
 * `operator_actions` in its own transaction.
 */
@Injectable()
export class BalanceAdjustmentsService {
  constructor(
    private readonly db: LedgerDb,
    private readonly technical: TechnicalAccountsService,
    private readonly idempotency: IdempotencyService,
    private readonly config: LedgerWalletsConfig,
  ) {}

  apply(
    accountId: string,
    op: BalanceOperation,
    dto: BalanceAdjustmentDto,
    operator: LegacyOperator,
    idempotencyKey?: string,
  ): Promise<IdempotentResponse<BalanceAdjustmentResult>> {
    return this.db.withSession(async (session) => {
      if (!idempotencyKey) return { status: 200, body: await this.run(session, accountId, op, dto, operator), replayed: false };
      const hash = requestHash({ accountId, amount: dto.amount, reason: dto.reason, operator: operator.id });
      return this.idempotency.run(session, `legacy.balance.${op}`, idempotencyKey, hash, async (record) => {
        const body = await this.run(session, accountId, op, dto, operator, async (s, b) => record(s, 200, b));
        return { status: 200, body };
      });
    });
  }

  private async run(
    session: DbSession,
    accountId: string,
    op: BalanceOperation,
    dto: BalanceAdjustmentDto,
    operator: LegacyOperator,
    record?: (s: DbSession, body: BalanceAdjustmentResult) => Promise<void>,
  ): Promise<BalanceAdjustmentResult> {
    const [target] = await session.query<{ currency: string; account_type: string }>(
      `SELECT currency, account_type FROM ledger.accounts WHERE id = $1`,
      [accountId],
    );
    if (!target) throw new AppException('ACCOUNT_NOT_FOUND');
    const moves = op === 'add' || op === 'subtract';
    const suspense = moves ? await this.technical.id('suspense', target.currency) : null;
    if (suspense === accountId) throw new AppException('ACCOUNT_NOT_ALLOWED', 'The suspense account cannot adjust itself');

    return this.db.serializable(session, moneyLockKeys(suspense ? [accountId, suspense] : [accountId]), async (s) => {
      const ids = suspense ? [accountId, suspense].sort() : [accountId];
      const rows = await s.query<AccountRow>(
        `SELECT ${ACCOUNT_COLUMNS} FROM ledger.accounts WHERE id = ANY($1::uuid[]) ORDER BY id FOR UPDATE`,
        [ids],
      );
      const account = rows.find((r) => r.id === accountId)!;
      const available = toMoney(account.available_balance);
      let transactionId: string | null = null;
      let referenceId: string | null = null;

      if (op === 'freeze') {
        if (available < dto.amount) throw new AppException('INSUFFICIENT_BALANCE', insufficientMessage(available, dto.amount));
        await s.query(
          `UPDATE ledger.accounts SET available_balance = available_balance - $2, frozen_balance = frozen_balance + $2, updated_at = now() WHERE id = $1`,
          [accountId, dto.amount],
        );
      } else if (op === 'unfreeze') {
        const [held] = await s.query<{ held: string }>(
          // what active intents hold and what named holds hold (released only through their own route)
          `SELECT ((SELECT COALESCE(sum(frozen_amount), 0) FROM ledger.transaction_intents
                    WHERE source_account_id = $1 AND status IN ('CREATED', 'OTP_SENT', 'OTP_VERIFIED', 'PIN_VERIFIED'))
                 + (SELECT COALESCE(sum(amount), 0) FROM ledger.holds WHERE account_id = $1 AND status = 'ACTIVE'))::text AS held`,
          [accountId],
        );
        const releasable = toMoney(account.frozen_balance) - toMoney(held.held);
        if (releasable < dto.amount) {
          throw new AppException('INSUFFICIENT_BALANCE', `Insufficient frozen balance: releasable ${releasable}, required ${dto.amount}`);
        }
        await s.query(
          `UPDATE ledger.accounts SET available_balance = available_balance + $2, frozen_balance = frozen_balance - $2, updated_at = now() WHERE id = $1`,
          [accountId, dto.amount],
        );
      } else {
        if (op === 'subtract' && available < dto.amount && account.account_type !== 'treasury') {
          throw new AppException('INSUFFICIENT_BALANCE', insufficientMessage(available, dto.amount));
        }
        const legs = pairEntries([
          op === 'add' ? { from: suspense!, to: accountId, amount: dto.amount } : { from: accountId, to: suspense!, amount: dto.amount },
        ]);
        transactionId = randomUUID();
        referenceId = newReferenceId(this.config.LEDGER_REFERENCE_PREFIX);
        const signed = op === 'add' ? dto.amount : -dto.amount;
        const metadata = {
          typeCode: `TEST_FUNDING_${op.toUpperCase()}`,
          reason: dto.reason,
          signedAmount: signed,
          correlationId: currentContext()?.correlationId ?? null,
          agentId: null,
        };
        await s.query(
          `WITH t AS (
             INSERT INTO ledger.transactions (id, reference_id, type, amount, fee, currency, created_by, initiated_at, completed_at, metadata)
             VALUES ($1, $2, 'ADJUSTMENT', $3, 0, $4, $5, now(), now(), $6::jsonb) RETURNING id),
           l AS (
             INSERT INTO ledger.ledgers (id, transaction_id, account_id, kind, amount, currency, counterparty_ledger_id, created_by)
             SELECT e.id, t.id, e.account_id, e.kind, e.amount, $4, e.counterparty_id, $5
             FROM t CROSS JOIN jsonb_to_recordset($7::jsonb) AS e(id uuid, account_id uuid, kind text, amount bigint, counterparty_id uuid))
           UPDATE ledger.accounts a SET balance = a.balance + d.delta, available_balance = a.available_balance + d.delta, updated_at = now()
           FROM (VALUES ($8::uuid, $9::bigint), ($10::uuid, -$9::bigint)) AS d(id, delta) WHERE a.id = d.id`,
          [
            transactionId,
            referenceId,
            dto.amount,
            target.currency,
            operator.id,
            JSON.stringify(metadata),
            JSON.stringify(legs),
            accountId,
            signed,
            suspense,
          ],
        );
      }
      // The journal of who did it, in the same transaction as the change itself.
      const [after] = await s.query<AccountRow>(
        `WITH j AS (
           INSERT INTO ledger.operator_actions (account_id, action, amount, reason, operator_id, operator_roles, transaction_id, correlation_id)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8))
         SELECT ${ACCOUNT_COLUMNS} FROM ledger.accounts WHERE id = $1`,
        [
          accountId,
          op === 'add' || op === 'subtract' ? `TEST_FUNDING_${op.toUpperCase()}` : op.toUpperCase(),
          dto.amount,
          dto.reason,
          operator.id,
          operator.roles,
          transactionId,
          currentContext()?.correlationId ?? null,
        ],
      );
      const result: BalanceAdjustmentResult = {
        account: toAccountView(after),
        operation: op,
        amount: dto.amount,
        transactionId,
        referenceId,
      };
      if (record) await record(s, result);
      return result;
    });
  }
}

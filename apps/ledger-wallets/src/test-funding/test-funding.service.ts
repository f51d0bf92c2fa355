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
import type { TestFundingDto, TestFundingOperation } from './test-funding.dto';

export interface TestFundingResult {
  account: AccountView;
  operation: TestFundingOperation;
  amount: number;
  transactionId: string;
  referenceId: string;
}

/**
 * The test-funding flow (docs/ledger-corrections.md "Test funding"): a signed adjustment between an
 * account and its currency's suspense account, so `balance = credits − debits` still holds. It is
 * not a way to move customers' money (that is the intent path only) and the controller refuses it
 * outside NODE_ENV=test; real corrections go through maker-checker (corrections/). Each adjustment
 * is journaled in `operator_actions` in its own transaction, which is also how the hash chain knows
 * who wrote it (chain/chain-sources.ts).
 */
@Injectable()
export class TestFundingService {
  constructor(
    private readonly db: LedgerDb,
    private readonly technical: TechnicalAccountsService,
    private readonly idempotency: IdempotencyService,
    private readonly config: LedgerWalletsConfig,
  ) {}

  apply(
    accountId: string,
    op: TestFundingOperation,
    dto: TestFundingDto,
    idempotencyKey?: string,
  ): Promise<IdempotentResponse<TestFundingResult>> {
    const by = dto.createdBy ?? 'test-funding';
    return this.db.withSession(async (session) => {
      if (!idempotencyKey) return { status: 200, body: await this.run(session, accountId, op, dto, by), replayed: false };
      const hash = requestHash({ accountId, amount: dto.amount, reason: dto.reason, operator: by });
      // Scopes kept from the former balance route, so keys stored before it moved here still replay.
      return this.idempotency.run(session, `legacy.balance.${op}`, idempotencyKey, hash, async (record) => {
        const body = await this.run(session, accountId, op, dto, by, async (s, b) => record(s, 200, b));
        return { status: 200, body };
      });
    });
  }

  private async run(
    session: DbSession,
    accountId: string,
    op: TestFundingOperation,
    dto: TestFundingDto,
    by: string,
    record?: (s: DbSession, body: TestFundingResult) => Promise<void>,
  ): Promise<TestFundingResult> {
    const [target] = await session.query<{ currency: string }>(`SELECT currency FROM ledger.accounts WHERE id = $1`, [accountId]);
    if (!target) throw new AppException('ACCOUNT_NOT_FOUND');
    const suspense = await this.technical.id('suspense', target.currency);
    if (suspense === accountId) throw new AppException('ACCOUNT_NOT_ALLOWED', 'The suspense account cannot adjust itself');

    return this.db.serializable(session, moneyLockKeys([accountId, suspense]), async (s) => {
      const rows = await s.query<AccountRow>(
        `SELECT ${ACCOUNT_COLUMNS} FROM ledger.accounts WHERE id = ANY($1::uuid[]) ORDER BY id FOR UPDATE`,
        [[accountId, suspense].sort()],
      );
      const account = rows.find((r) => r.id === accountId)!;
      const available = toMoney(account.available_balance);
      if (op === 'subtract' && available < dto.amount && account.account_type !== 'treasury') {
        throw new AppException('INSUFFICIENT_BALANCE', insufficientMessage(available, dto.amount));
      }
      const legs = pairEntries([
        op === 'add' ? { from: suspense, to: accountId, amount: dto.amount } : { from: accountId, to: suspense, amount: dto.amount },
      ]);
      const transactionId = randomUUID();
      const referenceId = newReferenceId(this.config.LEDGER_REFERENCE_PREFIX);
      const signed = op === 'add' ? dto.amount : -dto.amount;
      const typeCode = `TEST_FUNDING_${op.toUpperCase()}`;
      const correlationId = currentContext()?.correlationId ?? null;
      const metadata = { typeCode, reason: dto.reason, signedAmount: signed, correlationId, agentId: null };
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
          by,
          JSON.stringify(metadata),
          JSON.stringify(legs),
          accountId,
          signed,
          suspense,
        ],
      );
      // The journal, in the same transaction as the adjustment itself.
      const [after] = await s.query<AccountRow>(
        `WITH j AS (
           INSERT INTO ledger.operator_actions (account_id, action, amount, reason, operator_id, operator_roles, transaction_id, correlation_id)
           VALUES ($1, $2, $3, $4, $5, '{}', $6, $7))
         SELECT ${ACCOUNT_COLUMNS} FROM ledger.accounts WHERE id = $1`,
        [accountId, typeCode, dto.amount, dto.reason, by, transactionId, correlationId],
      );
      const result: TestFundingResult = { account: toAccountView(after), operation: op, amount: dto.amount, transactionId, referenceId };
      if (record) await record(s, result);
      return result;
    });
  }
}

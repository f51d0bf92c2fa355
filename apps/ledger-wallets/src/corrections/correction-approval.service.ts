import { randomUUID } from 'node:crypto';
import { Injectable, Logger } from '@nestjs/common';
import { AppException } from '@mm/errors';
import { currentContext } from '@mm/platform';
import { LedgerDb } from '../db/ledger-db.service';
import { moneyLockKeys } from '../db/lock-keys';
import { toMoney } from '../db/money';
import { uuidArrayLit, uuidLit } from '../db/sql-literal';
import { pairEntries } from '../execution/double-entry';
import { newReferenceId } from '../execution/reference-id';
import { insufficientMessage } from '../intents/intent-view';
import { LedgerWalletsConfig } from '../ledger-wallets.config';
import { TechnicalAccountsService } from '../wallets/technical-accounts.service';
import { CorrectionAlerts } from './correction-alerts.service';
import { MAY_GO_NEGATIVE, checkDecision } from './correction-decision';
import { CORRECTION_ROW_COLUMNS, type CorrectionRow, type CorrectionView } from './correction-view';
import { CorrectionsService } from './corrections.service';
import { CorrectionsSettings } from './corrections.settings';
import type { ApproveCorrectionDto } from './dto/decide-correction.dto';
import { type OperatorIdentity, OperatorTokens } from './operator-tokens.service';
import { ReversalApproval } from './reversal-approval';

/**
 * The checker's approval: the only step of a correction that moves money. In one SERIALIZABLE
 * transaction, with the correction and both accounts locked in the ledger's one order (correction,
 * then accounts ascending): the signed adjustment (an ADJUSTMENT transaction, two linked entries
 * against the currency's suspense account), both balances, the decision and its journal rows.
 * Then the compliance channel is told. A REVERSAL is approved the same way, by ReversalApproval
 * (the inverse of every entry of one transaction instead of one adjustment against suspense).
 */
@Injectable()
export class CorrectionApproval {
  private readonly logger = new Logger(CorrectionApproval.name);
  private readonly reversals: ReversalApproval;

  constructor(
    private readonly db: LedgerDb,
    private readonly config: LedgerWalletsConfig,
    private readonly settings: CorrectionsSettings,
    private readonly technical: TechnicalAccountsService,
    private readonly corrections: CorrectionsService,
    private readonly alerts: CorrectionAlerts,
  ) {
    this.reversals = new ReversalApproval(db, settings, config.LEDGER_REFERENCE_PREFIX);
  }

  async approve(id: string, checker: OperatorIdentity, dto: ApproveCorrectionDto): Promise<CorrectionView> {
    OperatorTokens.require(checker, this.settings.approverRoles, 'approve a correction');
    const [before] = await this.db.query<CorrectionRow>(`SELECT ${CORRECTION_ROW_COLUMNS} FROM ledger.corrections WHERE id = $1`, [id]);
    if (!before) throw new AppException('CORRECTION_NOT_FOUND');
    checkDecision(before, checker, this.settings);
    if (before.kind === 'REVERSAL') await this.reversals.execute(before, checker, dto);
    else await this.adjust(before, checker, dto);
    // One read of the executed correction (it carries the new transaction's reference) for the log
    // and the alert; the answer is read after the alert, so it shows the alert's outcome.
    const executed = await this.corrections.view(id);
    this.logger.log(
      { correctionId: id, kind: before.kind, makerId: executed.maker.id, checkerId: checker.id, transactionId: executed.transactionId },
      'correction executed',
    );
    await this.alerts.deliver(executed);
    return this.corrections.get(id);
  }

  /** An ACCOUNT correction: the signed adjustment of one account against the currency's suspense account. */
  private async adjust(before: CorrectionRow, checker: OperatorIdentity, dto: ApproveCorrectionDto): Promise<void> {
    const id = before.id;
    const suspense = await this.technical.id('suspense', before.currency.trim());
    const accounts = [before.account_id!, suspense].sort();
    const lockedRead = `WITH c AS (SELECT ${CORRECTION_ROW_COLUMNS} FROM ledger.corrections WHERE id = ${uuidLit(id)} FOR UPDATE),
           a AS (SELECT id, account_type, available_balance::text FROM ledger.accounts WHERE id = ANY(${uuidArrayLit(accounts)}) ORDER BY id FOR UPDATE)
      SELECT (SELECT row_to_json(c) FROM c) AS correction, (SELECT json_agg(a ORDER BY a.id) FROM a) AS accounts`;

    return this.db.withSession((session) =>
      this.db.serializable(
        session,
        moneyLockKeys(accounts, id),
        async (s, rows) => {
          const locked = rows[0] as {
            correction: CorrectionRow;
            accounts: { id: string; account_type: string; available_balance: string }[];
          };
          const correction = locked.correction;
          checkDecision(correction, checker, this.settings); // again, under the lock: a concurrent decision may have won
          const amount = toMoney(correction.amount);
          const account = locked.accounts.find((a) => a.id === correction.account_id)!;
          const available = toMoney(account.available_balance);
          if (correction.direction === 'DEBIT' && !MAY_GO_NEGATIVE.includes(account.account_type) && available < amount) {
            throw new AppException('INSUFFICIENT_BALANCE', insufficientMessage(available, amount));
          }
          const transactionId = randomUUID();
          const referenceId = newReferenceId(this.config.LEDGER_REFERENCE_PREFIX);
          const signed = correction.direction === 'CREDIT' ? amount : -amount;
          const legs = pairEntries([
            correction.direction === 'CREDIT'
              ? { from: suspense, to: correction.account_id!, amount }
              : { from: correction.account_id!, to: suspense, amount },
          ]);
          const correlationId = currentContext()?.correlationId ?? null;
          const metadata = {
            typeCode: `CORRECTION_${correction.direction}`,
            correctionId: correction.id,
            makerId: correction.maker_id,
            checkerId: checker.id,
            reason: correction.reason,
            signedAmount: signed,
            correlationId,
            agentId: null,
          };
          await s.query(
            `WITH t AS (
               INSERT INTO ledger.transactions (id, reference_id, type, amount, fee, currency, created_by, initiated_at, completed_at, metadata)
               VALUES ($1, $2, 'ADJUSTMENT', $3, 0, $4, $5, $6, now(), $7::jsonb) RETURNING id),
             l AS (
               INSERT INTO ledger.ledgers (id, transaction_id, account_id, kind, amount, currency, counterparty_ledger_id, created_by)
               SELECT e.id, t.id, e.account_id, e.kind, e.amount, $4, e.counterparty_id, $5
               FROM t CROSS JOIN jsonb_to_recordset($8::jsonb) AS e(id uuid, account_id uuid, kind text, amount bigint, counterparty_id uuid)),
             b AS (
               UPDATE ledger.accounts a SET balance = a.balance + d.delta, available_balance = a.available_balance + d.delta, updated_at = now()
               FROM (VALUES ($9::uuid, $10::bigint), ($11::uuid, -$10::bigint)) AS d(id, delta) WHERE a.id = d.id),
             u AS (
               UPDATE ledger.corrections SET status = 'EXECUTED', checker_id = $12, checker_roles = $13, decided_at = now(),
                 decision_reason = $14, transaction_id = $1
               WHERE id = $15 RETURNING *),
             ev AS (
               INSERT INTO ledger.correction_events (correction_id, event, actor_id, actor_roles, reason, metadata)
               VALUES ($15, 'approved', $12, $13, $14, $16::jsonb), ($15, 'executed', $12, $13, NULL, $17::jsonb))
             SELECT id FROM u`,
            [
              transactionId,
              referenceId,
              amount,
              correction.currency.trim(),
              correction.maker_id,
              new Date(correction.submitted_at),
              JSON.stringify(metadata),
              JSON.stringify(legs),
              correction.account_id!,
              signed,
              suspense,
              checker.id,
              checker.roles,
              dto.reason ?? null,
              correction.id,
              JSON.stringify({ tokenId: checker.tokenId, correlationId }),
              JSON.stringify({ transactionId, referenceId, signedAmount: signed }),
            ],
          );
        },
        lockedRead,
      ),
    );
  }
}

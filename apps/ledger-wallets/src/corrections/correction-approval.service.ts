import { Injectable, Logger } from '@nestjs/common';
import { AppException } from '@mm/errors';
import { LedgerDb } from '../db/ledger-db.service';
import { toMoney } from '../db/money';
import { pairEntries } from '../execution/double-entry';
import { LedgerWalletsConfig } from '../ledger-wallets.config';
import { TechnicalAccountsService } from '../wallets/technical-accounts.service';
import { CorrectionAlerts } from './correction-alerts.service';
import { checkDecision } from './correction-decision';
import { executeCorrectionEntries } from './correction-execution';
import { CORRECTION_ROW_COLUMNS, type CorrectionRow, type CorrectionView } from './correction-view';
import { CorrectionsService } from './corrections.service';
import { CorrectionsSettings } from './corrections.settings';
import type { ApproveCorrectionDto } from './dto/decide-correction.dto';
import { type OperatorIdentity, OperatorTokens } from './operator-tokens.service';
import { ReversalApproval } from './reversal-approval';

/**
 * The checker's approval: the only step of a correction that moves money, written by
 * executeCorrectionEntries (one SERIALIZABLE transaction, correction and accounts locked). An
 * ACCOUNT correction writes the signed adjustment: two linked entries against the currency's
 * suspense account. A REVERSAL (ReversalApproval) writes the inverse of every entry of one
 * transaction. Then the compliance channel is told.
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
    const suspense = await this.technical.id('suspense', before.currency.trim());
    const account = before.account_id!;
    // Amount and direction never change once submitted: the request's row is the one executed.
    const amount = toMoney(before.amount);
    const signed = before.direction === 'CREDIT' ? amount : -amount;
    await executeCorrectionEntries(
      this.db,
      this.settings,
      this.config.LEDGER_REFERENCE_PREFIX,
      { before, checker, dto },
      {
        legs: pairEntries([
          before.direction === 'CREDIT' ? { from: suspense, to: account, amount } : { from: account, to: suspense, amount },
        ]),
        fee: 0,
        reversalOf: null,
        metadata: (correction, correlationId) => ({
          typeCode: `CORRECTION_${correction.direction}`,
          correctionId: correction.id,
          makerId: correction.maker_id,
          checkerId: checker.id,
          reason: correction.reason,
          signedAmount: signed,
          correlationId,
          agentId: null,
        }),
        executed: (ids) => ({ ...ids, signedAmount: signed }),
      },
    );
  }
}

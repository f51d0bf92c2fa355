import { Injectable, Logger } from '@nestjs/common';
import { AppException } from '@mm/errors';
import type { AuthUser } from '../../access/permissions';
import type { PreparedState } from '../../approvals/approval-handler';
import { type LedgerCorrectionRequest, LedgerOperationsClient } from './ledger-operations.client';
import type { LedgerCorrection } from './ledger-operations.types';

/** What a correction-backed request keeps between submission and decision. */
export interface CorrectionPrepared extends Record<string, unknown> {
  /** the ledger's pending correction */
  correctionId: string;
  /** the account corrected (ACCOUNT), null for a REVERSAL */
  accountId: string | null;
  /** the ledger's own judgement: above its compliance limit only a compliance officer may approve */
  requiresCompliance: boolean;
}

/** The answer of an executed correction-backed request (`result` of the approval request). */
export interface CorrectionResult extends Record<string, unknown> {
  correctionId: string;
  transactionId: string | null;
  referenceId: string | null;
}

/**
 * The ledger side of the three actions carried out as a ledger correction (LEDGER_CORRECTION,
 * LEDGER_REVERSAL, FLOAT_FUNDING). The ledger keeps its own maker-checker: the correction is
 * submitted with the MAKER's token when the request is submitted (idempotency key = the approval
 * request's id), approved with the CHECKER's token, rejected with the checker's token, expired with
 * the orchestrator's credential alone. So the ledger, which verifies each token itself, still refuses
 * a correction approved by its maker, whatever the engine's configuration.
 */
@Injectable()
export class LedgerCorrectionRunner {
  private readonly logger = new Logger(LedgerCorrectionRunner.name);

  constructor(private readonly ledger: LedgerOperationsClient) {}

  async submit(
    maker: AuthUser,
    requestId: string,
    body: DistributiveOmit<LedgerCorrectionRequest, 'idempotencyKey'>,
  ): Promise<CorrectionPrepared> {
    const correction = await this.ledger.submitCorrection(maker.accessToken, {
      ...body,
      idempotencyKey: requestId,
    } as LedgerCorrectionRequest);
    return { correctionId: correction.id, accountId: correction.accountId, requiresCompliance: correction.requiresCompliance };
  }

  /** The ledger's postings and balances before/after; for a viewer the ledger does not let read corrections, why not. */
  async preview(prepared: PreparedState, viewer: AuthUser): Promise<unknown> {
    const { correctionId } = correctionOf(prepared);
    try {
      return await this.ledger.preview(viewer.accessToken, correctionId);
    } catch (error) {
      if (error instanceof AppException && error.status === 403) return { correctionId, unavailable: error.code };
      throw error;
    }
  }

  /**
   * Approves the ledger's correction with the checker's token. An approval the ledger already
   * executed for this request (a retry after a crash or a lost answer) answers the same result. A
   * refusal (a 4xx: the engine records the request FAILED with its code) ends the ledger's pending
   * correction too, rejected by the checker, so that the same correction (a reversal of the same
   * payment) can be submitted again. An unknown outcome (a timeout, a 5xx) leaves it pending: the
   * engine keeps the request EXECUTING and runs it again.
   */
  async execute(prepared: PreparedState, checker: AuthUser, requestId: string): Promise<CorrectionResult> {
    const { correctionId } = correctionOf(prepared);
    if (!checker.accessToken) {
      // a resumed execution carries no token; the ledger accepts decisions only with one
      throw new AppException('SERVICE_UNAVAILABLE', `Correction ${correctionId}: the ledger needs the checker's access token to approve`);
    }
    try {
      return resultOf(await this.ledger.approve(checker.accessToken, correctionId, `Approval request ${requestId} approved`));
    } catch (error) {
      if (!(error instanceof AppException) || error.status >= 500) throw error;
      if (error.code === 'CORRECTION_ALREADY_DECIDED') {
        const correction = await this.ledger.correction(checker.accessToken, correctionId);
        if (correction.status === 'EXECUTED') return resultOf(correction);
      }
      await this.end(correctionId, checker, `Approval request ${requestId} failed: ${error.code}`).catch((endError: unknown) =>
        this.logger.warn({ correctionId, code: (endError as AppException).code }, 'could not end the correction of a failed request'),
      );
      throw error;
    }
  }

  /** Rejected by the checker (with their token), or expired (no person: the orchestrator's credential). */
  async release(prepared: PreparedState, by: AuthUser | null, reason: string): Promise<void> {
    const { correctionId } = correctionOf(prepared);
    if (by) await this.end(correctionId, by, reason);
    else await this.expire(correctionId, reason);
  }

  /**
   * Rejected at the ledger by `by`; when the ledger does not let that person decide (the maker
   * withdrawing their own request, a role the ledger does not accept), expired instead: the request
   * is over either way. Already decided: nothing left to end.
   */
  private async end(correctionId: string, by: AuthUser, reason: string): Promise<void> {
    try {
      if (!by.accessToken) return await this.expire(correctionId, reason);
      await this.ledger.reject(by.accessToken, correctionId, reason);
    } catch (error) {
      if (!(error instanceof AppException)) throw error;
      if (error.code === 'CORRECTION_SAME_USER' || error.code === 'OPERATOR_ROLE_REQUIRED') return await this.expire(correctionId, reason);
      if (error.code !== 'CORRECTION_ALREADY_DECIDED') throw error;
    }
  }

  private async expire(correctionId: string, reason: string): Promise<void> {
    try {
      await this.ledger.expire(correctionId, reason);
    } catch (error) {
      if (!(error instanceof AppException) || error.code !== 'CORRECTION_ALREADY_DECIDED') throw error;
    }
  }
}

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

function correctionOf(prepared: PreparedState): CorrectionPrepared {
  if (!prepared || typeof prepared.correctionId !== 'string') throw new Error('approval request without its ledger correction');
  return prepared as CorrectionPrepared;
}

function resultOf(correction: LedgerCorrection): CorrectionResult {
  return { correctionId: correction.id, transactionId: correction.transactionId, referenceId: correction.referenceId };
}

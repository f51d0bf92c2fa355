import { Injectable } from '@nestjs/common';
import { AppException } from '@mm/errors';
import type { AuthUser } from '../../access/permissions';
import type { PreparedState, Settlement } from '../../approvals/approval-handler';
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
  /** what the ledger recorded: a reversal's amount is the transaction's */
  amount: number;
  currency: string;
}

/** The answer of an executed correction-backed request (`result` of the approval request). */
export interface CorrectionResult extends Record<string, unknown> {
  correctionId: string;
  transactionId: string | null;
  referenceId: string | null;
}

/** The ledger refusing this checker (not the correction): the engine leaves the request pending for another. */
const CHECKER_REFUSALS: ReadonlySet<string> = new Set(['CORRECTION_SAME_USER', 'CORRECTION_COMPLIANCE_REQUIRED', 'OPERATOR_ROLE_REQUIRED']);

/**
 * The ledger side of the three actions carried out as a ledger correction (LEDGER_CORRECTION,
 * LEDGER_REVERSAL, FLOAT_FUNDING). The ledger keeps its own maker-checker: the correction is
 * submitted with the MAKER's token when the request is submitted (idempotency key = the approval
 * request's id), approved with the CHECKER's token, rejected with the checker's token when the
 * checker rejects. Whatever ends without a person deciding it (an expiry, a failed execution, a
 * submission never stored, an execution cut short) is expired with the orchestrator's credential
 * alone, so the ledger's journal never names someone for what they did not do. The ledger, which
 * verifies each token itself, still refuses a correction approved by its maker.
 */
@Injectable()
export class LedgerCorrectionRunner {
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
    return {
      correctionId: correction.id,
      accountId: correction.accountId,
      requiresCompliance: correction.requiresCompliance,
      amount: correction.amount,
      currency: correction.currency,
    };
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
   * executed for this request (a lost answer) answers the same result. A refusal of the checker
   * (their role, the ledger's compliance limit) is thrown as it is and leaves the correction
   * pending: the engine keeps the request pending for another checker. Any other refusal is thrown
   * too (the engine records the request FAILED and releases it: the correction is expired). An
   * unknown outcome (a timeout, a 5xx) leaves it pending; the sweep settles it.
   */
  async execute(prepared: PreparedState, checker: AuthUser, requestId: string): Promise<CorrectionResult> {
    const { correctionId } = correctionOf(prepared);
    if (!checker.accessToken) {
      // only a person approves at the ledger; without one the engine settles instead (settle)
      throw new AppException('SERVICE_UNAVAILABLE', `Correction ${correctionId}: the ledger needs the checker's access token to approve`);
    }
    try {
      return resultOf(await this.ledger.approve(checker.accessToken, correctionId, `Approval request ${requestId} approved`));
    } catch (error) {
      if (error instanceof AppException && error.code === 'CORRECTION_ALREADY_DECIDED') {
        const correction = await this.ledger.correctionByKey(requestId);
        if (correction.status === 'EXECUTED') return resultOf(correction);
      }
      throw error;
    }
  }

  /** Rejected by the checker (with their token), or, when nobody decided it, expired with the orchestrator's credential. */
  async release(prepared: PreparedState, by: AuthUser | null, reason: string): Promise<void> {
    const { correctionId } = correctionOf(prepared);
    if (by?.accessToken) {
      try {
        await this.ledger.reject(by.accessToken, correctionId, reason);
        return;
      } catch (error) {
        if (!(error instanceof AppException)) throw error;
        if (error.code === 'CORRECTION_ALREADY_DECIDED') return;
        if (!CHECKER_REFUSALS.has(error.code)) throw error;
        // the ledger does not let this person reject it: the request is over either way
      }
    }
    await this.expire(correctionId, reason);
  }

  /**
   * An approval whose answer was lost, finished from the ledger's record under the request's id:
   * executed there → EXECUTED with its result; still pending → expired there, and the request
   * FAILED with EXECUTION_INTERRUPTED (submit again); never submitted, rejected or expired → FAILED.
   */
  async settle(requestId: string): Promise<Settlement> {
    let correction = await this.byKey(requestId);
    if (correction?.status === 'PENDING_APPROVAL') {
      await this.expire(correction.id, `Approval request ${requestId}: execution interrupted`);
      correction = await this.byKey(requestId);
    }
    if (correction?.status === 'EXECUTED') return { status: 'EXECUTED', result: resultOf(correction) };
    return {
      status: 'FAILED',
      code: 'EXECUTION_INTERRUPTED',
      message: correction
        ? `The approval was cut short; the ledger's correction ${correction.id} is ${correction.status}, nothing moved`
        : 'The approval was cut short before the ledger recorded a correction; nothing moved',
    };
  }

  /** A correction submitted for a request that was never stored: expired, if there is one and it is pending. */
  async abandon(requestId: string): Promise<void> {
    const correction = await this.byKey(requestId);
    if (correction?.status === 'PENDING_APPROVAL') await this.expire(correction.id, `Approval request ${requestId} was never stored`);
  }

  private async byKey(requestId: string): Promise<LedgerCorrection | null> {
    try {
      return await this.ledger.correctionByKey(requestId);
    } catch (error) {
      if (error instanceof AppException && error.code === 'CORRECTION_NOT_FOUND') return null;
      throw error;
    }
  }

  /** Idempotent: an expired correction expires again; one approved meanwhile answers CORRECTION_ALREADY_DECIDED, which settle reads back. */
  private async expire(correctionId: string, reason: string): Promise<void> {
    try {
      await this.ledger.expire(correctionId, reason);
    } catch (error) {
      if (!(error instanceof AppException) || error.code !== 'CORRECTION_ALREADY_DECIDED') throw error;
    }
  }
}

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

export function correctionOf(prepared: PreparedState): CorrectionPrepared {
  if (!prepared || typeof prepared.correctionId !== 'string') throw new Error('approval request without its ledger correction');
  return prepared as CorrectionPrepared;
}

function resultOf(correction: LedgerCorrection): CorrectionResult {
  return { correctionId: correction.id, transactionId: correction.transactionId, referenceId: correction.referenceId };
}

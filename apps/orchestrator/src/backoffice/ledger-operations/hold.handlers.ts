import { Injectable } from '@nestjs/common';
import type { AuthUser } from '../../access/permissions';
import type { ApprovalHandler, ApprovalTarget, PreparedState } from '../../approvals/approval-handler';
import { money } from './ledger-correction.handlers';
import { LedgerOperationsClient } from './ledger-operations.client';
import { HoldPlacePayload, HoldReleasePayload, parsePayload } from './ledger-operations.payloads';

/** What placing or releasing a hold would do to the account, from its balances now. */
export interface HoldPreview {
  accountId: string;
  currency: string;
  amount: number;
  availableBefore: number;
  availableAfter: number;
  frozenBefore: number;
  frozenAfter: number;
  /** false: the account does not hold the amount now (placing) */
  sufficient: boolean;
}

/**
 * Holds are not money leaving an account, but they stop a person paying (placing) or free money a
 * compliance officer froze (releasing): both are engine actions. Neither is four eyes by law of the
 * ledger, so `APPROVALS_ONE_PERSON_ACTIONS` may relax them; by default both need a second person.
 * The ledger places or releases with the CHECKER's token (a maker role there), the approval request's
 * id as idempotency key, and records the request as `requestedBy`.
 */
const HOLD = { makerPermission: 'ledger.corrections', checkerPermission: 'transactions.approve', fourEyesMandatory: false } as const;

@Injectable()
export class HoldPlaceHandler implements ApprovalHandler<HoldPlacePayload> {
  readonly action = 'HOLD_PLACE';
  readonly makerPermission = HOLD.makerPermission;
  readonly checkerPermission = HOLD.checkerPermission;
  readonly fourEyesMandatory = HOLD.fourEyesMandatory;

  constructor(private readonly ledger: LedgerOperationsClient) {}

  parse(payload: unknown): HoldPlacePayload {
    return parsePayload(HoldPlacePayload, payload);
  }

  describe(p: HoldPlacePayload): { target: ApprovalTarget; summary: string; amount: { value: number; currency: string } } {
    return {
      target: { type: 'account', id: p.accountId },
      summary: `Hold ${money(p.amount, p.currency)} on account ${p.accountId}`,
      amount: { value: p.amount, currency: p.currency },
    };
  }

  async preview(p: HoldPlacePayload): Promise<HoldPreview> {
    const account = await this.ledger.account(p.accountId);
    return {
      accountId: p.accountId,
      currency: p.currency,
      amount: p.amount,
      availableBefore: account.availableBalance,
      availableAfter: account.availableBalance - p.amount,
      frozenBefore: account.frozenBalance,
      frozenAfter: account.frozenBalance + p.amount,
      sufficient: account.availableBalance >= p.amount,
    };
  }

  async execute(p: HoldPlacePayload, _prepared: PreparedState, checker: AuthUser, requestId: string): Promise<unknown> {
    const hold = await this.ledger.placeHold(checker.accessToken, {
      idempotencyKey: requestId,
      accountId: p.accountId,
      amount: p.amount,
      reason: p.reason,
      requestedBy: `approval-request:${requestId}`,
    });
    return { holdId: hold.id, accountId: hold.accountId, status: hold.status };
  }
}

@Injectable()
export class HoldReleaseHandler implements ApprovalHandler<HoldReleasePayload> {
  readonly action = 'HOLD_RELEASE';
  readonly makerPermission = HOLD.makerPermission;
  readonly checkerPermission = HOLD.checkerPermission;
  readonly fourEyesMandatory = HOLD.fourEyesMandatory;

  constructor(private readonly ledger: LedgerOperationsClient) {}

  parse(payload: unknown): HoldReleasePayload {
    return parsePayload(HoldReleasePayload, payload);
  }

  describe(p: HoldReleasePayload): { target: ApprovalTarget; summary: string; amount: { value: number; currency: string } } {
    return {
      target: { type: 'account', id: p.accountId },
      summary: `Release the hold ${p.holdId} of ${money(p.amount, p.currency)} on account ${p.accountId}`,
      amount: { value: p.amount, currency: p.currency },
    };
  }

  /** One pending release per hold, whatever the reason given. */
  dedupKey(p: HoldReleasePayload): string {
    return `hold-release:${p.holdId.toLowerCase()}`;
  }

  async preview(p: HoldReleasePayload, _prepared: PreparedState, viewer: AuthUser): Promise<unknown> {
    const [account, hold] = await Promise.all([
      this.ledger.account(p.accountId),
      this.ledger.hold(viewer.accessToken, p.holdId).catch(() => null),
    ]);
    return {
      accountId: p.accountId,
      currency: p.currency,
      amount: p.amount,
      availableBefore: account.availableBalance,
      availableAfter: account.availableBalance + p.amount,
      frozenBefore: account.frozenBalance,
      frozenAfter: account.frozenBalance - p.amount,
      sufficient: hold ? hold.status === 'ACTIVE' : true,
      hold,
    };
  }

  async execute(p: HoldReleasePayload, _prepared: PreparedState, checker: AuthUser, requestId: string): Promise<unknown> {
    const hold = await this.ledger.releaseHold(checker.accessToken, p.holdId, {
      idempotencyKey: requestId,
      reason: p.reason,
      requestedBy: `approval-request:${requestId}`,
    });
    return { holdId: hold.id, accountId: hold.accountId, status: hold.status };
  }
}

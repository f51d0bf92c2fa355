import { Injectable } from '@nestjs/common';
import { AppException } from '@mm/errors';
import type { AuthUser } from '../../access/permissions';
import type { ApprovalHandler, ApprovalTarget, PreparedState, Settlement } from '../../approvals/approval-handler';
import { money, requireCurrency } from './ledger-correction.handlers';
import { LedgerOperationsClient } from './ledger-operations.client';
import { HoldPlacePayload, HoldReleasePayload, parsePayload } from './ledger-operations.payloads';
import type { LedgerHold } from './ledger-operations.types';

/** A release request keeps the hold as the ledger had it at submission. */
interface HoldReleasePrepared extends Record<string, unknown> {
  holdId: string;
  accountId: string;
  amount: number;
  currency: string;
}

async function holdByKey(ledger: LedgerOperationsClient, requestId: string): Promise<LedgerHold | null> {
  try {
    return await ledger.holdByKey(requestId);
  } catch (error) {
    if (error instanceof AppException && error.code === 'HOLD_NOT_FOUND') return null;
    throw error;
  }
}

function interrupted(when: string): Settlement {
  return { status: 'FAILED', code: 'EXECUTION_INTERRUPTED', message: `The approval was cut short ${when}; nothing moved` };
}

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
 * id as idempotency key, and records the request as `requestedBy`. An execution whose answer was lost
 * is settled from the ledger's hold under that key (service credential): there, EXECUTED; not there,
 * FAILED with EXECUTION_INTERRUPTED (nothing was reserved, so nothing to give back).
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

  /** One live hold request per account and amount, whatever the reason given. */
  dedupKey(p: HoldPlacePayload): string {
    return `hold-place:${p.accountId.toLowerCase()}:${p.amount}:${p.currency}`;
  }

  /** Nothing is reserved: the account must exist in the payload's currency (404 ACCOUNT_NOT_FOUND, 400 CURRENCY_MISMATCH). */
  async prepare(p: HoldPlacePayload): Promise<PreparedState> {
    await requireCurrency(this.ledger, p.accountId, p.currency);
    return null;
  }

  async settle(_p: HoldPlacePayload, _prepared: PreparedState, requestId: string): Promise<Settlement> {
    const hold = await holdByKey(this.ledger, requestId);
    if (hold) return { status: 'EXECUTED', result: { holdId: hold.id, accountId: hold.accountId, status: hold.status } };
    return interrupted('before the ledger placed the hold');
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

  /** From the hold as the ledger has it (prepare refused any payload that says otherwise). */
  describe(
    p: HoldReleasePayload,
    prepared?: PreparedState,
  ): { target: ApprovalTarget; summary: string; amount: { value: number; currency: string } } {
    const hold = (prepared as HoldReleasePrepared | null | undefined) ?? p;
    return {
      target: { type: 'account', id: hold.accountId },
      summary: `Release the hold ${p.holdId} of ${money(hold.amount, hold.currency)} on account ${hold.accountId}`,
      amount: { value: hold.amount, currency: hold.currency },
    };
  }

  /**
   * The hold read at the ledger with the maker's token: it must be active, and the payload's account,
   * amount and currency must be its own (422 HOLD_MISMATCH), so a request never shows less than the
   * ledger would release.
   */
  async prepare(p: HoldReleasePayload, maker: AuthUser): Promise<PreparedState> {
    const hold = await this.ledger.hold(maker.accessToken, p.holdId.toLowerCase());
    if (hold.status !== 'ACTIVE')
      throw new AppException('HOLD_ALREADY_RELEASED', `Hold ${p.holdId} was released on ${hold.released?.at ?? '?'}`);
    const mismatch = (['accountId', 'amount', 'currency'] as const).filter(
      (field) => String(hold[field]).toLowerCase() !== String(p[field]).toLowerCase(),
    );
    if (mismatch.length > 0) {
      throw new AppException(
        'HOLD_MISMATCH',
        `Hold ${p.holdId} is ${money(hold.amount, hold.currency)} on account ${hold.accountId}: the payload's ${mismatch.join(', ')} differ`,
      );
    }
    const prepared: HoldReleasePrepared = { holdId: hold.id, accountId: hold.accountId, amount: hold.amount, currency: hold.currency };
    return prepared;
  }

  async settle(p: HoldReleasePayload, _prepared: PreparedState, requestId: string): Promise<Settlement> {
    const hold = await holdByKey(this.ledger, requestId);
    if (hold && hold.id === p.holdId.toLowerCase() && hold.status === 'RELEASED') {
      return { status: 'EXECUTED', result: { holdId: hold.id, accountId: hold.accountId, status: hold.status } };
    }
    return interrupted('before the ledger released the hold');
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

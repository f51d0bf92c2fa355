import { Injectable } from '@nestjs/common';
import { AppException } from '@mm/errors';
import type { AuthUser } from '../../access/permissions';
import { AgentsService } from '../../agents/agents.service';
import type { ApprovalHandler, ApprovalTarget, PreparedState } from '../../approvals/approval-handler';
import { LedgerCorrectionRunner } from './ledger-correction.runner';
import { CorrectionPayload, FloatFundingPayload, ReversalPayload, parsePayload } from './ledger-operations.payloads';

export const money = (amount: number, currency: string): string => `${String(amount).replace(/\B(?=(\d{3})+(?!\d))/g, ' ')} ${currency}`;

/** Money moves: four eyes whatever the configuration (the ledger itself refuses a correction approved by its maker). */
const LEDGER_MONEY = {
  makerPermission: 'ledger.corrections',
  checkerPermission: 'transactions.approve',
  fourEyesMandatory: true,
} as const;

/** LEDGER_CORRECTION: one account credited or debited against the currency's suspense account. */
@Injectable()
export class LedgerCorrectionHandler implements ApprovalHandler<CorrectionPayload> {
  readonly action = 'LEDGER_CORRECTION';
  readonly makerPermission = LEDGER_MONEY.makerPermission;
  readonly checkerPermission = LEDGER_MONEY.checkerPermission;
  readonly fourEyesMandatory = LEDGER_MONEY.fourEyesMandatory;

  constructor(private readonly runner: LedgerCorrectionRunner) {}

  parse(payload: unknown): CorrectionPayload {
    return parsePayload(CorrectionPayload, payload);
  }

  describe(p: CorrectionPayload): { target: ApprovalTarget; summary: string; amount: { value: number; currency: string } } {
    return {
      target: { type: 'account', id: p.accountId },
      summary: `${p.direction === 'CREDIT' ? 'Credit' : 'Debit'} ${money(p.amount, p.currency)} ${p.direction === 'CREDIT' ? 'to' : 'from'} account ${p.accountId}`,
      amount: { value: p.amount, currency: p.currency },
    };
  }

  prepare(p: CorrectionPayload, maker: AuthUser, requestId: string): Promise<PreparedState> {
    return this.runner.submit(maker, requestId, {
      kind: 'ACCOUNT',
      accountId: p.accountId,
      direction: p.direction,
      amount: p.amount,
      reason: p.reason,
    });
  }

  preview(_p: CorrectionPayload, prepared: PreparedState, viewer: AuthUser): Promise<unknown> {
    return this.runner.preview(prepared, viewer);
  }

  execute(_p: CorrectionPayload, prepared: PreparedState, checker: AuthUser, requestId: string): Promise<unknown> {
    return this.runner.execute(prepared, checker, requestId);
  }

  release(_p: CorrectionPayload, prepared: PreparedState, by: AuthUser | null, reason: string): Promise<void> {
    return this.runner.release(prepared, by, reason);
  }
}

/** LEDGER_REVERSAL: one whole ledger transaction undone, every account it touched at once. */
@Injectable()
export class LedgerReversalHandler implements ApprovalHandler<ReversalPayload> {
  readonly action = 'LEDGER_REVERSAL';
  readonly makerPermission = LEDGER_MONEY.makerPermission;
  readonly checkerPermission = LEDGER_MONEY.checkerPermission;
  readonly fourEyesMandatory = LEDGER_MONEY.fourEyesMandatory;

  constructor(private readonly runner: LedgerCorrectionRunner) {}

  parse(payload: unknown): ReversalPayload {
    return parsePayload(ReversalPayload, payload);
  }

  describe(p: ReversalPayload): { target: ApprovalTarget; summary: string } {
    const named = p.referenceId ?? p.transactionId!;
    return { target: { type: 'transaction', id: named }, summary: `Reverse transaction ${named}` };
  }

  /** One pending reversal per transaction, whatever the reason given. */
  dedupKey(p: ReversalPayload): string {
    return `reversal:${p.referenceId ?? p.transactionId!.toLowerCase()}`;
  }

  prepare(p: ReversalPayload, maker: AuthUser, requestId: string): Promise<PreparedState> {
    return this.runner.submit(maker, requestId, {
      kind: 'REVERSAL',
      ...(p.referenceId ? { referenceId: p.referenceId } : { transactionId: p.transactionId }),
      reason: p.reason,
    });
  }

  preview(_p: ReversalPayload, prepared: PreparedState, viewer: AuthUser): Promise<unknown> {
    return this.runner.preview(prepared, viewer);
  }

  execute(_p: ReversalPayload, prepared: PreparedState, checker: AuthUser, requestId: string): Promise<unknown> {
    return this.runner.execute(prepared, checker, requestId);
  }

  release(_p: ReversalPayload, prepared: PreparedState, by: AuthUser | null, reason: string): Promise<void> {
    return this.runner.release(prepared, by, reason);
  }
}

/**
 * FLOAT_FUNDING: money credited to an agent's float account (the agent's main account in that
 * currency), carried out as an ACCOUNT CREDIT correction of that account against suspense.
 */
@Injectable()
export class FloatFundingHandler implements ApprovalHandler<FloatFundingPayload> {
  readonly action = 'FLOAT_FUNDING';
  readonly makerPermission = LEDGER_MONEY.makerPermission;
  readonly checkerPermission = LEDGER_MONEY.checkerPermission;
  readonly fourEyesMandatory = LEDGER_MONEY.fourEyesMandatory;

  constructor(
    private readonly runner: LedgerCorrectionRunner,
    private readonly agents: AgentsService,
  ) {}

  parse(payload: unknown): FloatFundingPayload {
    return parsePayload(FloatFundingPayload, payload);
  }

  describe(p: FloatFundingPayload): { target: ApprovalTarget; summary: string; amount: { value: number; currency: string } } {
    return {
      target: { type: 'agent', id: p.agentId },
      summary: `Fund the float of agent ${p.agentId} with ${money(p.amount, p.currency)}`,
      amount: { value: p.amount, currency: p.currency },
    };
  }

  async prepare(p: FloatFundingPayload, maker: AuthUser, requestId: string): Promise<PreparedState> {
    const floatAccount = await floatAccountOf(this.agents, p.agentId, p.currency);
    return this.runner.submit(maker, requestId, {
      kind: 'ACCOUNT',
      accountId: floatAccount,
      direction: 'CREDIT',
      amount: p.amount,
      reason: p.reason,
    });
  }

  preview(_p: FloatFundingPayload, prepared: PreparedState, viewer: AuthUser): Promise<unknown> {
    return this.runner.preview(prepared, viewer);
  }

  execute(_p: FloatFundingPayload, prepared: PreparedState, checker: AuthUser, requestId: string): Promise<unknown> {
    return this.runner.execute(prepared, checker, requestId);
  }

  release(_p: FloatFundingPayload, prepared: PreparedState, by: AuthUser | null, reason: string): Promise<void> {
    return this.runner.release(prepared, by, reason);
  }
}

/** The agent's float account in `currency`: 404 AGENT_NOT_FOUND, 422 AGENT_FLOAT_NOT_FOUND. */
export async function floatAccountOf(agents: AgentsService, agentId: string, currency: string): Promise<string> {
  const agent = await agents.findById(agentId.toLowerCase());
  if (!agent) throw new AppException('AGENT_NOT_FOUND');
  const account = agent.customer.accounts[currency as keyof typeof agent.customer.accounts];
  if (!account) throw new AppException('AGENT_FLOAT_NOT_FOUND', `Agent ${agentId} has no ${currency} float account`);
  return account;
}

import { Injectable } from '@nestjs/common';
import { AppException } from '@mm/errors';
import type { AuthUser } from '../../access/permissions';
import { AgentsService } from '../../identities/agents/agents.service';
import type { ApprovalAction, ApprovalHandler, ApprovalTarget, PreparedState, Settlement } from '../../approvals/approval-handler';
import { type CorrectionPrepared, LedgerCorrectionRunner, correctionOf } from './ledger-correction.runner';
import { LedgerOperationsClient } from './ledger-operations.client';
import { CorrectionPayload, FloatFundingPayload, ReversalPayload, parsePayload } from './ledger-operations.payloads';

export const money = (amount: number, currency: string): string => `${String(amount).replace(/\B(?=(\d{3})+(?!\d))/g, ' ')} ${currency}`;

type Described = { target: ApprovalTarget; summary: string; amount?: { value: number; currency: string } };

/**
 * What the three correction-backed actions share: four eyes whatever the configuration (the ledger
 * itself refuses a correction approved by its maker), the ledger's pending correction reserved by
 * `prepare`, previewed, approved, released and settled by the runner, and the ledger's own
 * compliance judgement honoured before anyone approves.
 */
abstract class CorrectionBackedHandler<P> implements ApprovalHandler<P> {
  abstract readonly action: ApprovalAction;
  readonly makerPermission = 'ledger.corrections';
  readonly checkerPermission = 'transactions.approve';
  readonly fourEyesMandatory = true;

  constructor(protected readonly runner: LedgerCorrectionRunner) {}

  abstract parse(payload: unknown): P;
  abstract describe(payload: P, prepared?: PreparedState): Described;
  abstract dedupKey(payload: P): string;
  abstract prepare(payload: P, maker: AuthUser, requestId: string): Promise<PreparedState>;

  /** The ledger's word: a correction above its own compliance limit (a reversal's largest movement) waits for compliance. */
  requiresCompliance(_p: P, prepared: PreparedState): boolean {
    return prepared !== null && (prepared as CorrectionPrepared).requiresCompliance === true;
  }

  preview(_p: P, prepared: PreparedState, viewer: AuthUser): Promise<unknown> {
    return this.runner.preview(prepared, viewer);
  }

  execute(_p: P, prepared: PreparedState, checker: AuthUser, requestId: string): Promise<unknown> {
    return this.runner.execute(prepared, checker, requestId);
  }

  release(_p: P, prepared: PreparedState, by: AuthUser | null, reason: string): Promise<void> {
    return prepared === null ? Promise.resolve() : this.runner.release(prepared, by, reason);
  }

  settle(_p: P, _prepared: PreparedState, requestId: string): Promise<Settlement> {
    return this.runner.settle(requestId);
  }

  abandon(_p: P, requestId: string): Promise<void> {
    return this.runner.abandon(requestId);
  }
}

/** LEDGER_CORRECTION: one account credited or debited against the currency's suspense account. */
@Injectable()
export class LedgerCorrectionHandler extends CorrectionBackedHandler<CorrectionPayload> {
  readonly action = 'LEDGER_CORRECTION';

  constructor(
    runner: LedgerCorrectionRunner,
    private readonly ledger: LedgerOperationsClient,
  ) {
    super(runner);
  }

  parse(payload: unknown): CorrectionPayload {
    return parsePayload(CorrectionPayload, payload);
  }

  describe(p: CorrectionPayload): Described {
    return {
      target: { type: 'account', id: p.accountId },
      summary: `${p.direction === 'CREDIT' ? 'Credit' : 'Debit'} ${money(p.amount, p.currency)} ${p.direction === 'CREDIT' ? 'to' : 'from'} account ${p.accountId}`,
      amount: { value: p.amount, currency: p.currency },
    };
  }

  /** One live correction per account, direction and amount, whatever the reason given. */
  dedupKey(p: CorrectionPayload): string {
    return `correction:${p.accountId.toLowerCase()}:${p.direction}:${p.amount}:${p.currency}`;
  }

  /** The account's currency is the ledger's: a payload naming another is refused before anything is reserved. */
  async prepare(p: CorrectionPayload, maker: AuthUser, requestId: string): Promise<PreparedState> {
    await requireCurrency(this.ledger, p.accountId, p.currency);
    return this.runner.submit(maker, requestId, {
      kind: 'ACCOUNT',
      accountId: p.accountId,
      direction: p.direction,
      amount: p.amount,
      reason: p.reason,
    });
  }
}

/** LEDGER_REVERSAL: one whole ledger transaction undone, every account it touched at once. */
@Injectable()
export class LedgerReversalHandler extends CorrectionBackedHandler<ReversalPayload> {
  readonly action = 'LEDGER_REVERSAL';

  constructor(runner: LedgerCorrectionRunner) {
    super(runner);
  }

  parse(payload: unknown): ReversalPayload {
    return parsePayload(ReversalPayload, payload);
  }

  /** The amount is the transaction's, as the ledger found it when the reversal was submitted. */
  describe(p: ReversalPayload, prepared?: PreparedState): Described {
    const named = p.referenceId ?? p.transactionId!;
    const reserved = prepared ? correctionOf(prepared) : null;
    return {
      target: { type: 'transaction', id: named },
      summary: reserved ? `Reverse transaction ${named} (${money(reserved.amount, reserved.currency)})` : `Reverse transaction ${named}`,
      amount: reserved ? { value: reserved.amount, currency: reserved.currency } : undefined,
    };
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
}

/**
 * FLOAT_FUNDING: money credited to an agent's float account (the agent's main account in that
 * currency), carried out as an ACCOUNT CREDIT correction of that account against suspense.
 */
@Injectable()
export class FloatFundingHandler extends CorrectionBackedHandler<FloatFundingPayload> {
  readonly action = 'FLOAT_FUNDING';

  constructor(
    runner: LedgerCorrectionRunner,
    private readonly agents: AgentsService,
  ) {
    super(runner);
  }

  parse(payload: unknown): FloatFundingPayload {
    return parsePayload(FloatFundingPayload, payload);
  }

  describe(p: FloatFundingPayload): Described {
    return {
      target: { type: 'agent', id: p.agentId },
      summary: `Fund the float of agent ${p.agentId} with ${money(p.amount, p.currency)}`,
      amount: { value: p.amount, currency: p.currency },
    };
  }

  /** One live funding per agent, amount and currency, whatever the reason given ("Top-up" and "Top-up " are one). */
  dedupKey(p: FloatFundingPayload): string {
    return `float-funding:${p.agentId.toLowerCase()}:${p.amount}:${p.currency}`;
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
}

/** The agent's float account in `currency`: 404 AGENT_NOT_FOUND, 422 AGENT_FLOAT_NOT_FOUND. */
export async function floatAccountOf(agents: AgentsService, agentId: string, currency: string): Promise<string> {
  const agent = await agents.findById(agentId.toLowerCase());
  if (!agent) throw new AppException('AGENT_NOT_FOUND');
  const account = agent.customer.accounts[currency as keyof typeof agent.customer.accounts];
  if (!account) throw new AppException('AGENT_FLOAT_NOT_FOUND', `Agent ${agentId} has no ${currency} float account`);
  return account;
}

/** 404 ACCOUNT_NOT_FOUND, or 400 CURRENCY_MISMATCH when the account holds another currency than the payload says. */
export async function requireCurrency(ledger: LedgerOperationsClient, accountId: string, currency: string): Promise<void> {
  const account = await ledger.account(accountId.toLowerCase());
  if (account.currency !== currency)
    throw new AppException('CURRENCY_MISMATCH', `Account ${accountId} holds ${account.currency}, not ${currency}`);
}

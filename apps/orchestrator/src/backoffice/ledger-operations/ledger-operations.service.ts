import { Injectable } from '@nestjs/common';
import { AppException } from '@mm/errors';
import type { AuthUser } from '../../access/permissions';
import { type Agent, AgentsService } from '../../identities/agents/agents.service';
import type { ApprovalAction } from '../../approvals/approval-handler';
import { E164 } from '../../common/validators';
import { CustomersService } from '../../identities/customers/customers.service';
import { floatAccountOf } from './ledger-correction.handlers';
import { LedgerOperationsClient } from './ledger-operations.client';
import type {
  FloatFundingBody,
  ListHoldsQuery,
  ListLedgerCorrectionsQuery,
  PlaceHoldBody,
  ReleaseHoldBody,
  SubmitLedgerCorrectionBody,
} from './ledger-operations.dto';
import {
  AGENT_CODE,
  type CorrectionPayload,
  type FloatFundingPayload,
  type HoldPlacePayload,
  type HoldReleasePayload,
  type ReversalPayload,
  UUID,
} from './ledger-operations.payloads';
import type { LedgerCorrection, LedgerHold } from './ledger-operations.types';

const ACCOUNT_FIELDS = ['accountId', 'direction', 'amount', 'currency'] as const;
const REVERSAL_FIELDS = ['referenceId', 'transactionId'] as const;

/**
 * What the back-office ledger routes do besides submitting: turn a route's body into the exact
 * payload the engine stores (the account's currency read from the ledger, the agent's float account
 * found, the hold's amount read back), and relay the ledger's own records to readers.
 */
@Injectable()
export class LedgerOperationsService {
  constructor(
    private readonly ledger: LedgerOperationsClient,
    private readonly agents: AgentsService,
    private readonly customers: CustomersService,
  ) {}

  async correctionPayload(
    body: SubmitLedgerCorrectionBody,
  ): Promise<{ action: ApprovalAction; payload: CorrectionPayload | ReversalPayload }> {
    if (body.kind === 'REVERSAL') {
      refuseFields(body, ACCOUNT_FIELDS, 'REVERSAL');
      if (body.referenceId !== undefined && body.transactionId !== undefined) {
        throw fieldError(
          'transactionId',
          'NAMES_TRANSACTION_ONCE',
          'a REVERSAL names its transaction by referenceId or by transactionId, not both',
        );
      }
      const named =
        body.referenceId !== undefined ? { referenceId: body.referenceId } : { transactionId: body.transactionId!.toLowerCase() };
      return { action: 'LEDGER_REVERSAL', payload: { ...named, reason: body.reason } };
    }
    refuseFields(body, REVERSAL_FIELDS, 'ACCOUNT');
    const accountId = body.accountId!.toLowerCase();
    const account = await this.ledger.account(accountId);
    if (body.currency !== undefined && body.currency !== account.currency) {
      throw new AppException('CURRENCY_MISMATCH', `Account ${accountId} holds ${account.currency}, not ${body.currency}`);
    }
    return {
      action: 'LEDGER_CORRECTION',
      payload: { accountId, direction: body.direction!, amount: body.amount!, currency: account.currency, reason: body.reason },
    };
  }

  /** The agent named by id, agent code or phone, with a float account in the currency. */
  async floatFundingPayload(agentRef: string, body: FloatFundingBody): Promise<FloatFundingPayload> {
    const agent = await this.agent(agentRef);
    await floatAccountOf(this.agents, agent.id, body.currency);
    return { agentId: agent.id, amount: body.amount, currency: body.currency, reason: body.reason };
  }

  async holdPayload(body: PlaceHoldBody): Promise<HoldPlacePayload> {
    const accountId = body.accountId.toLowerCase();
    const account = await this.ledger.account(accountId);
    return { accountId, amount: body.amount, currency: account.currency, reason: body.reason };
  }

  /** The hold as the ledger has it (read with the maker's token): it must still be active. */
  async holdReleasePayload(holdId: string, body: ReleaseHoldBody, maker: AuthUser): Promise<HoldReleasePayload> {
    const hold = await this.ledger.hold(maker.accessToken, holdId);
    if (hold.status !== 'ACTIVE')
      throw new AppException('HOLD_ALREADY_RELEASED', `Hold ${holdId} was released on ${hold.released?.at ?? '?'}`);
    return {
      holdId,
      accountId: hold.accountId,
      amount: hold.amount,
      currency: hold.currency as HoldReleasePayload['currency'],
      reason: body.reason,
    };
  }

  holds(user: AuthUser, query: ListHoldsQuery): Promise<LedgerHold[]> {
    return this.ledger.holds(user.accessToken, { accountId: query.accountId?.toLowerCase(), status: query.status, limit: query.limit });
  }

  hold(user: AuthUser, holdId: string): Promise<LedgerHold> {
    return this.ledger.hold(user.accessToken, holdId);
  }

  corrections(user: AuthUser, query: ListLedgerCorrectionsQuery): Promise<LedgerCorrection[]> {
    return this.ledger.corrections(user.accessToken, { status: query.status, limit: query.limit });
  }

  correction(user: AuthUser, correctionId: string): Promise<LedgerCorrection> {
    return this.ledger.correction(user.accessToken, correctionId);
  }

  private async agent(ref: string): Promise<Agent> {
    let agent: Agent | undefined;
    if (UUID.test(ref)) agent = await this.agents.findById(ref.toLowerCase());
    else if (AGENT_CODE.test(ref)) agent = await this.agents.findByCode(ref);
    else if (E164.test(ref)) {
      const customer = await this.customers.findByPhone(ref);
      agent = customer ? await this.agents.findByUserId(customer.userId) : undefined;
    } else {
      throw fieldError(
        'agentId',
        'INVALID_AGENT_REF',
        'agentId must be an agent id (UUID), an agent code (AG and 8 digits) or a phone number (E.164)',
      );
    }
    if (!agent) throw new AppException('AGENT_NOT_FOUND');
    return agent;
  }
}

function fieldError(field: string, code: string, message: string): AppException {
  return new AppException('VALIDATION_ERROR', `${field}: ${message}`, { errors: [{ field, code, message }] });
}

/** A field of the other kind of correction is refused, as the ledger refuses it. */
function refuseFields(body: SubmitLedgerCorrectionBody, fields: readonly (keyof SubmitLedgerCorrectionBody)[], kind: string): void {
  const extra = fields.find((f) => body[f] !== undefined);
  if (extra) throw fieldError(extra, 'NOT_PART_OF_KIND', `${extra} is not part of a ${kind} correction`);
}

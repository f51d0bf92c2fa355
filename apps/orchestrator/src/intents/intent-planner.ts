import { Inject, Injectable } from '@nestjs/common';
import type { Currency, IntentType } from '@mm/contracts';
import { AppException } from '@mm/errors';
import { withArticle } from '@mm/platform';
import type { AuthUser } from '../access/permissions';
import { roleName } from '../access/role-names';
import type { OperationType } from '../common/operation-type';
import { WITHDRAWAL_QR, WithdrawalQrService } from '../withdrawal-qr/withdrawal-qr.service';
import type { CreateIntentDto } from './dto/create-intent.dto';
import { MerchantQrClient, PARTNER_QR } from './merchant-qr.client';
import { PAYMENT_PARTIES, type PaymentParty, type PaymentPartiesPort } from '../payment-parties/payment-parties.port';
import type { AgentSnapshot, PartySnapshot } from './payment-intent.types';
import { normaliseCountryCode } from './phone-prefixes';

/** How messages name an intent type ("an agent cannot start a transfer"). */
const OPERATION_NAMES: Record<IntentType, string> = { TRANSFER: 'transfer', CASH_IN: 'cash-in', CASH_OUT: 'cash-out' };

/** Who pays whom for one create request, resolved and checked; nothing stored yet. */
export interface IntentPlan {
  type: IntentType;
  operationType: OperationType;
  amount: number;
  currency: Currency;
  initiator: PaymentParty;
  payerParty: PaymentParty;
  payeeParty: PaymentParty;
  payer: PartySnapshot;
  payee: PartySnapshot;
  agent: AgentSnapshot | null;
  requiresOtp: boolean;
  /** locked on the ledger intent: a partner order's token, or `wqr:<id>` for a withdrawal code */
  ledgerQrToken: string | null;
  withdrawalQrId: string | null;
  description: string | null;
  /** an end for the ledger intent earlier than its own lifetime: a partner order's `payBy` */
  ledgerExpiresAt: string | null;
  /**
   * the ledger's deadline for creating the intent: a withdrawal code's expiry (the ledger creates
   * the no-OTP cash-out only within the code's lifetime, and answers a replay after it with the
   * intent it made in time, or refuses)
   */
  createBy: string | null;
}

const PERSON_ROLES = ['CUSTOMER', 'MERCHANT'];
const AGENT_ROLES = ['AGENT', 'MASTER_AGENT'];

/**
 * Resolves the parties of a create request and applies the who-may-do-what rules:
 * - TRANSFER: a customer pays a customer or merchant found by phone, or a partner order by its QR;
 * - CASH_IN: an agent credits a customer (or merchant) found by phone from its float;
 * - CASH_OUT: an agent debits a customer found by its withdrawal QR (no OTP) or by phone (OTP to
 *   the customer), into its float.
 * The ledger checks the account types again; refusing here gives the client a precise code.
 */
@Injectable()
export class IntentPlanner {
  constructor(
    @Inject(PAYMENT_PARTIES) private readonly parties: PaymentPartiesPort,
    private readonly merchantQr: MerchantQrClient,
    private readonly withdrawalQr: WithdrawalQrService,
  ) {}

  async plan(user: AuthUser, dto: CreateIntentDto): Promise<IntentPlan> {
    // A counterparty found by phone (every type without a QR code) is read with the initiator, in
    // one statement; its refusals still come after the initiator's, in the order below.
    const byPhone = dto.qrToken ? undefined : dto.clientPhone || undefined;
    const { initiator, counterparty } = byPhone
      ? await this.parties.initiatorAndCounterparty(user.userId, byPhone)
      : { initiator: await this.parties.byUserId(user.userId), counterparty: undefined };
    if (!initiator) throw new AppException('FORBIDDEN', 'Only registered customers and agents can start an operation');
    const allowed = dto.type === 'TRANSFER' ? initiator.role === 'CUSTOMER' : AGENT_ROLES.includes(initiator.role) && initiator.agent;
    if (!allowed)
      throw new AppException(
        'INTENT_TYPE_NOT_ALLOWED',
        `${withArticle(roleName(initiator.role), true)} cannot start ${withArticle(OPERATION_NAMES[dto.type])}`,
      );
    const phone = checkedPhone(dto);
    const description = dto.description?.trim() || null;

    if (dto.type === 'TRANSFER') {
      if (dto.qrToken) return this.merchantPayment(dto, initiator, description);
      const payee = counterpartyByPhone(phone, counterparty);
      const currency = dto.currency ?? 'XAF';
      return this.finish(dto, currency, {
        initiator,
        payer: initiator,
        payee,
        agent: null,
        operationType: payee.role === 'MERCHANT' ? 'MERCHANT_PAYMENT' : 'TRANSFER',
        requiresOtp: false,
        description,
      });
    }

    if (dto.type === 'CASH_IN') {
      if (dto.qrToken) throw new AppException('QR_NOT_ALLOWED', 'A cash-in finds its customer by phone');
      const customer = counterpartyByPhone(phone, counterparty);
      return this.finish(dto, dto.currency ?? 'XAF', {
        initiator,
        payer: initiator,
        payee: customer,
        agent: initiator,
        operationType: 'CASH_IN',
        requiresOtp: false,
        description,
      });
    }

    // CASH_OUT
    if (dto.qrToken) {
      if (!WITHDRAWAL_QR.test(dto.qrToken)) throw new AppException('WITHDRAWAL_QR_INVALID');
      const qr = await this.withdrawalQr.resolve(dto.qrToken);
      const customer = await this.parties.byUserId(qr.customerUserId);
      if (!customer) throw new AppException('WITHDRAWAL_QR_INVALID');
      if (phone && phone !== customer.phone) throw new AppException('WITHDRAWAL_QR_INVALID');
      if ((qr.amount !== null && qr.amount !== dto.amount) || (dto.currency && dto.currency !== qr.currency)) {
        throw new AppException(
          'WITHDRAWAL_QR_AMOUNT_MISMATCH',
          `The customer's code is for ${qr.amount ?? 'any amount'} ${qr.currency}, not ${dto.amount} ${dto.currency ?? qr.currency}`,
        );
      }
      return this.finish(dto, qr.currency, {
        initiator,
        payer: customer,
        payee: initiator,
        agent: initiator,
        operationType: 'CASH_OUT',
        requiresOtp: false,
        description,
        ledgerQrToken: `wqr:${qr.id}`,
        withdrawalQrId: qr.id,
        createBy: qr.expiresAt,
      });
    }
    const customer = counterpartyByPhone(phone, counterparty);
    return this.finish(dto, dto.currency ?? 'XAF', {
      initiator,
      payer: customer,
      payee: initiator,
      agent: initiator,
      operationType: 'CASH_OUT',
      requiresOtp: true,
      description,
    });
  }

  private async merchantPayment(dto: CreateIntentDto, initiator: PaymentParty, description: string | null): Promise<IntentPlan> {
    const token = dto.qrToken!;
    if (WITHDRAWAL_QR.test(token)) throw new AppException('QR_NOT_ALLOWED', 'A withdrawal code is shown to an agent for a cash-out');
    if (!PARTNER_QR.test(token)) throw new AppException('QR_NOT_FOUND');
    const order = await this.merchantQr.resolve(token);
    if (!order.payable) throw new AppException('ORDER_NOT_PAYABLE', `The order is ${order.status}`);
    if (order.amount !== dto.amount || (dto.currency && dto.currency !== order.currencyCode)) {
      throw new AppException('ORDER_AMOUNT_MISMATCH', `The order is for ${order.amount} ${order.currencyCode}`);
    }
    const merchant = await this.parties.byMerchantId(order.merchantId);
    if (!merchant) throw new AppException('RECIPIENT_NOT_FOUND', 'The merchant of this order has no account');
    if (merchant.accounts[order.currencyCode] !== order.destinationAccountId) {
      // Partners names the account to credit; it must be the merchant's own, or something is badly wrong.
      throw new AppException('ORDER_NOT_PAYABLE', 'The order does not pay its merchant account');
    }
    return this.finish(dto, order.currencyCode, {
      initiator,
      payer: initiator,
      payee: merchant,
      agent: null,
      operationType: 'MERCHANT_PAYMENT',
      requiresOtp: false,
      description: description ?? order.description,
      ledgerQrToken: order.qrToken,
      // The ledger refuses the confirm after this: a payment cannot complete once the order stopped
      // being payable (it would credit the merchant for an expired order, a payment anomaly).
      ledgerExpiresAt: order.payBy,
    });
  }

  private finish(
    dto: CreateIntentDto,
    currency: Currency,
    p: {
      initiator: PaymentParty;
      payer: PaymentParty;
      payee: PaymentParty;
      agent: PaymentParty | null;
      operationType: OperationType;
      requiresOtp: boolean;
      description: string | null;
      ledgerQrToken?: string;
      withdrawalQrId?: string;
      ledgerExpiresAt?: string;
      createBy?: string;
    },
  ): IntentPlan {
    if (p.payer.userId === p.payee.userId) throw new AppException('SELF_TRANSFER');
    // The customer side of every operation is a person's or a shop's account, never an agent float.
    const customerSide = dto.type === 'CASH_OUT' ? p.payer : p.payee;
    if (!PERSON_ROLES.includes(customerSide.role)) {
      throw new AppException(
        'RECIPIENT_NOT_ELIGIBLE',
        `${withArticle(OPERATION_NAMES[dto.type], true)} cannot involve ${withArticle(roleName(customerSide.role))} account as the customer`,
      );
    }
    return {
      type: dto.type,
      operationType: p.operationType,
      amount: dto.amount,
      currency,
      initiator: p.initiator,
      payerParty: p.payer,
      payeeParty: p.payee,
      payer: snapshot(p.payer, currency),
      payee: snapshot(p.payee, currency),
      agent: p.agent ? agentSnapshot(p.agent, currency) : null,
      requiresOtp: p.requiresOtp,
      ledgerQrToken: p.ledgerQrToken ?? null,
      withdrawalQrId: p.withdrawalQrId ?? null,
      description: p.description,
      ledgerExpiresAt: p.ledgerExpiresAt ?? null,
      createBy: p.createBy ?? null,
    };
  }
}

/** The party the request names by phone, as read with the initiator (none read without a phone). */
function counterpartyByPhone(phone: string | undefined, found: PaymentParty | undefined): PaymentParty {
  if (!phone) throw new AppException('RECIPIENT_REQUIRED');
  if (!found) throw new AppException('RECIPIENT_NOT_FOUND');
  return found;
}

/** clientPhone, checked against clientCountryCode when both are given. */
function checkedPhone(dto: CreateIntentDto): string | undefined {
  if (dto.clientCountryCode === undefined) return dto.clientPhone;
  const prefix = normaliseCountryCode(dto.clientCountryCode);
  const field = (f: string, code: string, message: string) =>
    new AppException('VALIDATION_ERROR', `${f}: ${message}`, { errors: [{ field: f, code, message }] });
  if (!prefix) throw field('clientCountryCode', 'INVALID_COUNTRY_CODE', 'not a country the platform serves');
  if (dto.clientPhone && !dto.clientPhone.startsWith(prefix)) {
    throw field('clientCountryCode', 'COUNTRY_CODE_MISMATCH', `clientPhone does not start with ${prefix}`);
  }
  return dto.clientPhone;
}

function snapshot(party: PaymentParty, currency: Currency): PartySnapshot {
  const accountId = party.accounts[currency];
  if (!accountId) throw new AppException('CURRENCY_NOT_HELD', `${party.displayName} holds no ${currency} account`);
  return {
    userId: party.userId,
    customerId: party.customerId,
    role: party.role,
    phone: party.phone,
    displayName: party.displayName,
    kycTier: party.kycTier,
    accountId,
    ...(party.merchantId ? { merchantId: party.merchantId } : {}),
  };
}

function agentSnapshot(party: PaymentParty, currency: Currency): AgentSnapshot {
  const commissionAccountId = party.commissionAccounts[currency];
  if (!party.agent || !commissionAccountId)
    throw new AppException('CURRENCY_NOT_HELD', `The agent holds no ${currency} commission account`);
  return {
    ...snapshot(party, currency),
    agentId: party.agent.agentId,
    agentCode: party.agent.agentCode,
    masterAgentUserId: party.agent.masterAgentUserId,
    commissionAccountId,
  };
}

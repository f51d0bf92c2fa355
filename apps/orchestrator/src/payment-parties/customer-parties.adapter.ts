import { Injectable } from '@nestjs/common';
import { AgentsService } from '../identities/agents/agents.service';
import { CustomersService } from '../identities/customers/customers.service';
import type { Customer } from '../identities/customers/customer.types';
import { MerchantsService } from '../identities/merchants/merchants.service';
import type { PaymentParty, PaymentPartiesPort } from './payment-parties.port';

/** PAYMENT_PARTIES backed by the customer module's services (customers, merchants, agents). */
@Injectable()
export class CustomerPartiesAdapter implements PaymentPartiesPort {
  constructor(
    private readonly customers: CustomersService,
    private readonly merchants: MerchantsService,
    private readonly agents: AgentsService,
  ) {}

  async byUserId(userId: string): Promise<PaymentParty | undefined> {
    const customer = await this.customers.findByUserId(userId);
    return customer && this.toParty(customer);
  }

  async byUserIds(userIds: string[]): Promise<Array<PaymentParty | undefined>> {
    const found = await this.customers.findByUserIds(userIds);
    const parties = await Promise.all(found.map((c) => this.toParty(c)));
    return userIds.map((id) => parties.find((p) => p.userId === id));
  }

  async initiatorAndCounterparty(
    userId: string,
    phone: string,
  ): Promise<{ initiator: PaymentParty | undefined; counterparty: PaymentParty | undefined }> {
    const { byUserId, byPhone } = await this.customers.findByUserIdAndPhone(userId, phone);
    const same = byUserId !== undefined && byPhone?.id === byUserId.id;
    const [initiator, counterparty] = await Promise.all([
      byUserId && this.toParty(byUserId),
      byPhone && !same ? this.toParty(byPhone) : undefined,
    ]);
    return { initiator, counterparty: same ? initiator : counterparty };
  }

  async byMerchantId(merchantId: string): Promise<PaymentParty | undefined> {
    const merchant = await this.merchants.findById(merchantId);
    return merchant && this.toParty(merchant.customer, { merchantId: merchant.id, businessName: merchant.businessName });
  }

  private async toParty(customer: Customer, merchant?: { merchantId: string; businessName: string }): Promise<PaymentParty> {
    const party: PaymentParty = {
      customerId: customer.id,
      userId: customer.userId,
      role: customer.role,
      status: customer.status,
      kycTier: customer.kycTier,
      phone: customer.phone,
      displayName: `${customer.firstName} ${customer.lastName.charAt(0).toUpperCase()}.`,
      accounts: customer.accounts,
      commissionAccounts: customer.commissionAccounts,
    };
    if (customer.role === 'MERCHANT') {
      const found = merchant ?? (await this.merchants.findByUserId(customer.userId));
      if (found) {
        party.merchantId = 'merchantId' in found ? found.merchantId : found.id;
        party.displayName = found.businessName;
      }
    }
    if (customer.role === 'AGENT' || customer.role === 'MASTER_AGENT') {
      const agent = await this.agents.findByUserId(customer.userId);
      const master = agent?.masterAgentId ? await this.agents.findById(agent.masterAgentId) : undefined;
      if (agent) party.agent = { agentId: agent.id, agentCode: agent.agentCode, masterAgentUserId: master?.customer.userId ?? null };
    }
    return party;
  }
}

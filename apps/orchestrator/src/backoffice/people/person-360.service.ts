import { Injectable, Logger } from '@nestjs/common';
import { isErrorCode } from '@mm/errors';
import type { AuthUser } from '../../access/permissions';
import { AgentsService } from '../../identities/agents/agents.service';
import { CustomersService } from '../../identities/customers/customers.service';
import type { Customer } from '../../identities/customers/customer.types';
import { MerchantsService } from '../../identities/merchants/merchants.service';
import { PartnersClient } from '../partners/partners.client';
import { StaffService } from '../../identities/staff/staff.service';
import { TransactionHistoryService } from '../../transactions/transaction-history.service';
import type { FreezeReasonCode } from './freeze-reasons';
import { LimitUsageReader } from './limit-usage.reader';
import { PeopleSearchService } from './people-search.service';
import { PeopleUpstreams } from './people-upstreams.client';
import type {
  Person360View,
  PersonAgentView,
  PersonBalanceView,
  PersonConnectionsPart,
  PersonFreezeView,
  PersonHoldsPart,
  PersonIdentityView,
  PersonLimitsPart,
  PersonMerchantView,
  PersonOperationsPart,
  PersonSecurityPart,
  PersonWalletPart,
} from './person.views';

/** A part read, or the stable code of why it could not be: `{ unavailable: null, …data }` | `{ unavailable: code }`. */
type Part<T> = { unavailable: null } & T;

/**
 * The person 360 view: what the orchestrator holds about the person (identity, role, tier, status,
 * the freeze in force, agent and merchant records) and, each read apart so that one service down
 * leaves the rest of the page standing, the wallet's balances and the holds on them (ledger), limit
 * usage, recent operations, sessions, lockouts and second factor (auth), a merchant's partner
 * connections (partners). A part that fails names the error code in its own `unavailable`.
 */
@Injectable()
export class Person360Service {
  private readonly logger = new Logger(Person360Service.name);

  constructor(
    private readonly people: PeopleSearchService,
    private readonly customers: CustomersService,
    private readonly staff: StaffService,
    private readonly merchants: MerchantsService,
    private readonly agents: AgentsService,
    private readonly upstreams: PeopleUpstreams,
    private readonly limits: LimitUsageReader,
    private readonly history: TransactionHistoryService,
    private readonly partners: PartnersClient,
  ) {}

  /** `viewer`: the staff member asking (the ledger checks their own token for the holds). */
  async view(userId: string, viewer: AuthUser): Promise<Person360View> {
    const person = await this.people.get(userId, viewer);
    const security = this.part<PersonSecurityPart>('security', async () => ({ value: await this.upstreams.security(userId) }), {
      value: null,
    });
    if (person.kind === 'STAFF') {
      const staff = (await this.staff.findByUserId(userId))!;
      return {
        userId,
        kind: 'STAFF',
        role: person.role,
        identity: {
          phone: staff.phone,
          firstName: staff.firstName,
          lastName: staff.lastName,
          email: null,
          countryCode: staff.countryCode,
          customerId: null,
          staffId: staff.id,
          createdAt: staff.createdAt,
        },
        kycTier: null,
        status: null,
        freeze: null,
        wallet: null,
        holds: null,
        limits: null,
        recentOperations: null,
        security: await security,
        merchant: null,
        agent: null,
      };
    }

    const customer = (await this.customers.findByUserId(userId))!;
    const wallet = this.part<PersonWalletPart>('wallet', () => this.wallet(customer), { walletId: customer.walletId, balances: null });
    const balances = wallet.then((w) => w.balances ?? undefined);
    const agentRecord = person.agentId ? this.agents.findById(person.agentId) : Promise.resolve(undefined);
    const [freeze, walletPart, holds, limits, operations, merchant, agent] = await Promise.all([
      this.freeze(customer),
      wallet,
      this.part<PersonHoldsPart>('holds', () => this.holds(customer, viewer.accessToken), { items: null }),
      customer.role === 'CUSTOMER' || person.agentId
        ? this.part<PersonLimitsPart>(
            'limits',
            async () =>
              this.limits.read({
                customer: customer.role === 'CUSTOMER' ? { userId, kycTier: customer.kycTier } : undefined,
                agentId: person.agentId ?? undefined,
                balances: await balances,
              }),
            { version: null, timezone: null, windows: null },
          )
        : Promise.resolve(null),
      this.part<PersonOperationsPart>('recentOperations', () => this.operations(customer), { items: null }),
      person.merchantId ? this.merchant(person.merchantId) : Promise.resolve(null),
      agentRecord.then((a) => (a ? this.agent(a, wallet) : null)),
    ]);
    return {
      userId,
      kind: person.kind,
      role: person.role,
      identity: identityOf(customer),
      kycTier: customer.kycTier,
      status: customer.status,
      freeze,
      wallet: walletPart,
      holds,
      limits,
      recentOperations: operations,
      security: await security,
      merchant,
      agent,
    };
  }

  private async wallet(customer: Customer): Promise<{ walletId: string | null; balances: PersonBalanceView[] }> {
    if (!customer.walletId) return { walletId: null, balances: [] };
    const wallet = await this.upstreams.wallet(customer.walletId);
    return {
      walletId: wallet.id,
      balances: wallet.accounts.map((a) => ({
        accountId: a.id,
        currency: a.currency,
        accountType: a.accountType,
        available: a.availableBalance,
        held: a.frozenBalance,
        total: a.balance,
      })),
    };
  }

  private async holds(customer: Customer, viewerToken: string): Promise<{ items: PersonHoldsPart['items'] }> {
    const accounts = [...Object.values(customer.accounts), ...Object.values(customer.commissionAccounts)].filter(
      (id): id is string => !!id,
    );
    const lists = await Promise.all(accounts.map((id) => this.upstreams.holds(id, viewerToken)));
    return {
      items: lists
        .flat()
        .map((h) => ({
          holdId: h.id,
          accountId: h.accountId,
          amount: h.amount,
          currency: h.currency,
          status: h.status,
          reason: h.reason ?? null,
          createdAt: h.placed?.at ?? null,
        }))
        .sort((a, b) => (b.createdAt ?? '').localeCompare(a.createdAt ?? '')),
    };
  }

  /** The last 20 lines of the person's own history, as the person's own history route shows them. */
  private async operations(customer: Customer): Promise<{ items: PersonOperationsPart['items'] }> {
    const asPerson: AuthUser = { userId: customer.userId, role: customer.role, sessionId: '', permissions: [], accessToken: '' };
    const page = await this.history.list(asPerson, { limit: 20 });
    return { items: page.items };
  }

  private async freeze(customer: Customer): Promise<PersonFreezeView | null> {
    if (customer.status !== 'frozen') return null;
    const change = await this.customers.lastStatusChange(customer.id);
    if (!change || change.toStatus !== 'frozen') return null;
    return {
      reasonCode: change.reasonCode as FreezeReasonCode | null,
      note: change.reason,
      frozenBy: change.actorUserId,
      frozenAt: change.at,
    };
  }

  private async merchant(merchantId: string): Promise<PersonMerchantView | null> {
    const merchant = await this.merchants.findById(merchantId);
    if (!merchant) return null;
    const connections = await this.part<PersonConnectionsPart>(
      'connections',
      async () => ({ items: (await this.partners.merchantConnections(merchant.id, { limit: 50 })).data }),
      { items: null },
    );
    return { merchantId: merchant.id, businessName: merchant.businessName, category: merchant.category, connections };
  }

  private async agent(
    agent: NonNullable<Awaited<ReturnType<AgentsService['findById']>>>,
    wallet: Promise<PersonWalletPart>,
  ): Promise<PersonAgentView> {
    const master = agent.masterAgentId ? await this.agents.findById(agent.masterAgentId) : undefined;
    const { unavailable, balances } = await wallet;
    return {
      agentId: agent.id,
      agentCode: agent.agentCode,
      masterAgent: master
        ? {
            agentId: master.id,
            agentCode: master.agentCode,
            userId: master.customer.userId,
            name: `${master.customer.firstName} ${master.customer.lastName}`,
          }
        : null,
      unavailable,
      float: balances ? balances.filter((b) => b.accountType === 'agent') : null,
      commission: balances ? balances.filter((b) => b.accountType === 'agent_commission') : null,
    };
  }

  /** Reads one part; a failure becomes `unavailable: <code>` with the part's empty fields, and is logged. */
  private async part<T extends { unavailable: string | null }>(
    name: string,
    read: () => Promise<Omit<T, 'unavailable'>>,
    empty: Omit<T, 'unavailable'>,
  ): Promise<T> {
    try {
      return { unavailable: null, ...(await read()) } as Part<Omit<T, 'unavailable'>> as unknown as T;
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      this.logger.warn({ msg: 'person 360: a part could not be read', part: name, code, err: isErrorCode(code) ? undefined : error });
      return { unavailable: isErrorCode(code) ? code : 'INTERNAL_ERROR', ...empty } as unknown as T;
    }
  }
}

function identityOf(c: Customer): PersonIdentityView {
  return {
    phone: c.phone,
    firstName: c.firstName,
    lastName: c.lastName,
    email: c.email,
    countryCode: c.countryCode,
    customerId: c.id,
    staffId: null,
    createdAt: c.createdAt,
  };
}

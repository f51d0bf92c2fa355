import { Injectable } from '@nestjs/common';
import { type AppRole, type Currency, type LedgerWalletView, STAFF_ROLES, type StaffRole } from '@mm/contracts';
import { AppException } from '@mm/errors';
import { AgentsService } from '../identities/agents/agents.service';
import { AuthIdentityClient, LedgerWalletsClient } from '../clients/identity-clients';
import { CustomersService } from '../identities/customers/customers.service';
import { MerchantsService } from '../identities/merchants/merchants.service';
import { SmsOutbox } from '../notifications/sms-outbox.service';
import { StaffService } from '../identities/staff/staff.service';
import type { SagaStep } from '../workflows/saga.types';
import { type RegistrationContext, type RegistrationKind, type RegistrationResult, STEP } from './registration.types';

type Step = SagaStep<RegistrationContext>;

const STAFF_KINDS: readonly RegistrationKind[] = ['REGISTER_ADMIN', 'REGISTER_STAFF'];

/** An undo of something already gone is a success. */
async function ignoringNotFound(work: Promise<unknown>): Promise<void> {
  try {
    await work;
  } catch (error) {
    if (!(error instanceof AppException) || error.code !== 'USER_NOT_FOUND') throw error;
  }
}

function accountsOf(wallet: LedgerWalletView): { main: Partial<Record<Currency, string>>; commission: Partial<Record<Currency, string>> } {
  const main: Partial<Record<Currency, string>> = {};
  const commission: Partial<Record<Currency, string>> = {};
  for (const a of wallet.accounts) (a.accountType === 'agent_commission' ? commission : main)[a.currency] = a.id;
  return { main, commission };
}

const isStaffRole = (role: AppRole): role is StaffRole => (STAFF_ROLES as readonly AppRole[]).includes(role);

const ROLE_WORDS: Record<string, string> = {
  CUSTOMER: 'account',
  MERCHANT: 'merchant account',
  AGENT: 'agent account',
  MASTER_AGENT: 'agent account',
  SUPPORT: 'support account',
  COMPLIANCE: 'compliance account',
  ADMIN: 'administrator account',
  AUDITOR: 'auditor account',
};

/**
 * The steps of the registration workflow (docs/registration.md "Steps"), per kind:
 *   IDP_USER → LOCAL_USER → PROFILE (customer and profile, or staff) → MERCHANT | AGENT record →
 *   WALLET (not for staff) → ACTIVATION → NOTIFICATION.
 * The local user is created disabled and the customer hidden; ACTIVATION, once everything else
 * exists, lets the user sign in and makes the customer visible, so no interrupted run ever leaves
 * an account that can sign in without its wallet. The welcome SMS is queued last, so it is never
 * sent for a registration that is then undone.
 */
@Injectable()
export class RegistrationSteps {
  constructor(
    private readonly auth: AuthIdentityClient,
    private readonly ledger: LedgerWalletsClient,
    private readonly customers: CustomersService,
    private readonly merchants: MerchantsService,
    private readonly agents: AgentsService,
    private readonly staff: StaffService,
    private readonly sms: SmsOutbox,
  ) {}

  plan(kind: RegistrationKind): Step[] {
    const staff = STAFF_KINDS.includes(kind);
    return [
      this.idpUser(),
      this.localUser(),
      staff ? this.staffProfile() : this.customerProfile(),
      ...(kind === 'REGISTER_MERCHANT' ? [this.merchantRecord()] : []),
      ...(kind === 'REGISTER_AGENT' ? [this.agentRecord()] : []),
      ...(staff ? [] : [this.wallet()]),
      this.activation(staff),
      this.notification(),
    ];
  }

  result(registrationId: string, c: RegistrationContext): RegistrationResult {
    const staff = STAFF_KINDS.includes(c.kind);
    return {
      registrationId,
      userId: c.userId,
      role: c.role,
      phone: c.phone,
      ...(staff ? { staffId: c.profileId } : { customerId: c.profileId }),
      ...(c.merchant ? { merchantId: c.merchant.id } : {}),
      ...(c.agent ? { agentId: c.agent.id, agentCode: c.agent.agentCode } : {}),
      ...(c.wallet?.walletId ? { walletId: c.wallet.walletId, accounts: c.wallet.accounts } : {}),
      ...(c.wallet?.commissionAccounts && Object.keys(c.wallet.commissionAccounts).length > 0
        ? { commissionAccounts: c.wallet.commissionAccounts }
        : {}),
    };
  }

  private idpUser(): Step {
    return {
      name: STEP.IDP_USER,
      run: async (c, pin) => {
        if (pin === undefined) throw new AppException('INTERNAL_ERROR', 'The identity-provider step cannot run without the PIN');
        await this.auth.createIdpUser({ phone: c.phone, pin, idpUserId: c.idpUserId });
      },
      // Our own id only: a phone taken by another registration is never touched.
      undo: (c) => this.auth.deleteIdpUser(c.idpUserId),
    };
  }

  private localUser(): Step {
    return {
      name: STEP.LOCAL_USER,
      run: async (c) => {
        await this.auth.createLocalUser({
          idpUserId: c.idpUserId,
          userId: c.userId,
          roles: [c.role],
          profileId: c.profileId,
          status: 'DISABLED',
        });
      },
      undo: (c) => this.auth.deleteLocalUser(c.userId),
    };
  }

  private customerProfile(): Step {
    return {
      name: STEP.PROFILE,
      run: async (c) => {
        if (c.role === 'CUSTOMER' || c.role === 'MERCHANT' || c.role === 'AGENT' || c.role === 'MASTER_AGENT') {
          await this.customers.create({
            id: c.profileId,
            userId: c.userId,
            phone: c.phone,
            role: c.role,
            firstName: c.firstName,
            lastName: c.lastName,
            countryCode: c.countryCode,
            email: c.email,
            registrationId: c.registrationId,
          });
        }
      },
      undo: async (c) => {
        await this.customers.remove(c.profileId);
      },
    };
  }

  private staffProfile(): Step {
    return {
      name: STEP.PROFILE,
      run: async (c) => {
        if (!isStaffRole(c.role)) return;
        await this.staff.create({
          id: c.profileId,
          userId: c.userId,
          phone: c.phone,
          role: c.role,
          firstName: c.firstName,
          lastName: c.lastName,
          countryCode: c.countryCode,
          createdBy: c.requestedBy,
          registrationId: c.registrationId,
        });
      },
      undo: (c) => this.staff.remove(c.profileId),
    };
  }

  private merchantRecord(): Step {
    return {
      name: STEP.MERCHANT,
      run: async (c) => {
        if (c.merchant) await this.merchants.create({ ...c.merchant, customerId: c.profileId });
      },
      undo: async (c) => {
        if (c.merchant) await this.merchants.remove(c.merchant.id);
      },
    };
  }

  private agentRecord(): Step {
    return {
      name: STEP.AGENT,
      run: async (c) => {
        if (c.agent) await this.agents.create({ ...c.agent, customerId: c.profileId });
      },
      undo: async (c) => {
        if (c.agent) await this.agents.remove(c.agent.id);
      },
    };
  }

  private wallet(): Step {
    return {
      name: STEP.WALLET,
      run: async (c) => {
        if (!c.wallet) return;
        const wallet = await this.ledger.createWallet(c.wallet.ownerType, c.wallet.ownerId, c.wallet.holderName);
        const { main, commission } = accountsOf(wallet);
        await this.customers.attachWallet(c.profileId, {
          walletId: wallet.id,
          accounts: [
            ...Object.entries(main).map(([currency, accountId]) => ({
              accountId,
              currency: currency as Currency,
              purpose: 'main' as const,
            })),
            ...Object.entries(commission).map(([currency, accountId]) => ({
              accountId,
              currency: currency as Currency,
              purpose: 'commission' as const,
            })),
          ],
        });
        return { ...c, wallet: { ...c.wallet, walletId: wallet.id, accounts: main, commissionAccounts: commission } };
      },
      undo: async (c) => {
        if (!c.wallet) return;
        await this.customers.detachWallet(c.profileId);
        await this.ledger.closeWallet(c.wallet.ownerType, c.wallet.ownerId);
      },
    };
  }

  private notification(): Step {
    return {
      name: STEP.NOTIFICATION,
      run: async (c) => {
        const code = c.agent ? ` Your agent code is ${c.agent.agentCode}.` : '';
        await this.sms.enqueue({
          dedupeKey: `registration:${c.userId}`,
          to: c.phone,
          text: `Welcome ${c.firstName}! Your ${ROLE_WORDS[c.role] ?? 'account'} is ready: sign in with your phone number and PIN.${code}`,
        });
      },
      undo: async (c) => {
        await this.sms.cancel(`registration:${c.userId}`);
      },
    };
  }

  private activation(staff: boolean): Step {
    return {
      name: STEP.ACTIVATION,
      run: async (c) => {
        await this.auth.setStatus(c.userId, 'ACTIVE');
        if (staff) await this.staff.setRegistered(c.profileId, true);
        else await this.customers.setRegistered(c.profileId, true);
      },
      undo: async (c) => {
        if (staff) await this.staff.setRegistered(c.profileId, false);
        else await this.customers.setRegistered(c.profileId, false);
        await ignoringNotFound(this.auth.setStatus(c.userId, 'DISABLED'));
      },
    };
  }
}

import type { AppRole, Currency, StaffRole } from '@mm/contracts';
import type { WalletOwnerType } from '../clients/identity-clients';
import type { MerchantCategory } from '../identities/merchants/merchant-categories';

/** The staff roles an administrator creates with `POST /api/orchestrator/admin/staff` (administrators have their own route). */
export const CREATED_STAFF_ROLES = ['SUPPORT', 'COMPLIANCE', 'AUDITOR'] as const satisfies readonly StaffRole[];
export type CreatedStaffRole = (typeof CREATED_STAFF_ROLES)[number];

export const REGISTRATION_KINDS = ['REGISTER_CUSTOMER', 'REGISTER_MERCHANT', 'REGISTER_AGENT', 'REGISTER_ADMIN', 'REGISTER_STAFF'] as const;
export type RegistrationKind = (typeof REGISTRATION_KINDS)[number];

/** Step names, as the saga log records them. */
export const STEP = {
  IDP_USER: 'IDP_USER',
  LOCAL_USER: 'LOCAL_USER',
  PROFILE: 'PROFILE',
  MERCHANT: 'MERCHANT',
  AGENT: 'AGENT',
  WALLET: 'WALLET',
  NOTIFICATION: 'NOTIFICATION',
  ACTIVATION: 'ACTIVATION',
} as const;

/**
 * Everything a registration run needs, persisted in the saga log: every id is chosen before the
 * first step, so a retried step or an undo targets exactly what this run created and never another
 * registration's user. The PIN is not here: it never leaves the request's memory.
 */
export interface RegistrationContext {
  /** the saga run's id */
  registrationId: string;
  kind: RegistrationKind;
  role: AppRole;
  phone: string;
  firstName: string;
  lastName: string;
  countryCode: string;
  email: string | null;
  idpUserId: string;
  userId: string;
  /** the customer id (customers, merchants, agents) or the staff id */
  profileId: string;
  merchant?: { id: string; businessName: string; category: MerchantCategory };
  agent?: { id: string; agentCode: string; masterAgentId: string | null };
  wallet?: {
    ownerType: WalletOwnerType;
    ownerId: string;
    holderName: string;
    walletId?: string;
    accounts?: Partial<Record<Currency, string>>;
    commissionAccounts?: Partial<Record<Currency, string>>;
  };
  requestedBy: string | null;
  /** a compliance officer or administrator created at once because nobody else could have checked it (the platform's first) */
  bootstrapException?: true;
}

/** What a finished registration answers (and a replay with the same Idempotency-Key answers again). */
export interface RegistrationResult {
  registrationId: string;
  userId: string;
  role: AppRole;
  phone: string;
  customerId?: string;
  staffId?: string;
  merchantId?: string;
  agentId?: string;
  agentCode?: string;
  walletId?: string;
  accounts?: Partial<Record<Currency, string>>;
  commissionAccounts?: Partial<Record<Currency, string>>;
  /** the bootstrap exception of STAFF_CREATE was used (see RegistrationContext) */
  bootstrapException?: true;
}

/** The registration input once validated (the PIN travels beside it, never inside). */
export interface RegistrationInput {
  phone: string;
  firstName: string;
  lastName: string;
  countryCode: string;
  email?: string;
  businessName?: string;
  category?: MerchantCategory;
  masterAgentCode?: string;
  /** staff role of an administrator-created staff user */
  staffRole?: CreatedStaffRole;
}

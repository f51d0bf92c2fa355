import { ApiProperty } from '@nestjs/swagger';
import { APP_ROLES, type AppRole, CUSTOMER_STATUSES, type CustomerStatus, MerchantConnectionViewDto, UserSecurityDoc } from '@mm/contracts';
import { TransactionView } from '../../transactions/dto/transaction.views';
import { FREEZE_REASON_CODES, type FreezeReasonCode } from './freeze-reasons';

export const PERSON_KINDS = ['CUSTOMER', 'MERCHANT', 'AGENT', 'STAFF'] as const;
export type PersonKind = (typeof PERSON_KINDS)[number];

const UNAVAILABLE = {
  type: String,
  nullable: true,
  example: null,
  description: 'null when this part was read; else the stable error code that kept it from being read (the rest of the view stands)',
} as const;

/** One person as a search lists it. */
export class PersonSummaryView {
  @ApiProperty({
    format: 'uuid',
    example: '5b0e1c8e-3f0a-4c55-9a57-1f1d3c0b9e21',
    description: 'the user id (access token subject): the key of the 360 view',
  })
  userId: string;

  @ApiProperty({ enum: PERSON_KINDS, example: 'CUSTOMER', description: 'STAFF for support, compliance, administrators and auditors' })
  kind: PersonKind;

  @ApiProperty({ enum: APP_ROLES, example: 'CUSTOMER' })
  role: AppRole;

  @ApiProperty({ example: '+237690000001' })
  phone: string;

  @ApiProperty({ example: 'Awa' })
  firstName: string;

  @ApiProperty({ example: 'Nkoulou' })
  lastName: string;

  @ApiProperty({ type: String, nullable: true, example: null, description: 'merchants only' })
  businessName: string | null;

  @ApiProperty({ type: String, nullable: true, example: null, description: 'agents only (AG and 8 digits)' })
  agentCode: string | null;

  @ApiProperty({
    enum: CUSTOMER_STATUSES,
    nullable: true,
    example: 'active',
    description: 'null for staff (their access is their role and sessions)',
  })
  status: CustomerStatus | null;

  @ApiProperty({ type: String, nullable: true, example: 'TIER_1', description: 'null for staff' })
  kycTier: string | null;

  @ApiProperty({
    type: String,
    format: 'uuid',
    nullable: true,
    example: '8a3f5c1e-7b2d-4f9a-a6e4-0c1b3d5f7a92',
    description: 'null for staff',
  })
  customerId: string | null;

  @ApiProperty({ type: String, format: 'uuid', nullable: true, example: null, description: 'staff only' })
  staffId: string | null;

  @ApiProperty({ type: String, format: 'uuid', nullable: true, example: '4ac4573d-9a58-44ce-92cf-f46fab963969' })
  walletId: string | null;

  @ApiProperty({ format: 'date-time', example: '2026-09-18T09:12:45.120Z' })
  createdAt: string;
}

export class PersonPageView {
  @ApiProperty({ type: [PersonSummaryView], description: 'newest first' })
  items: PersonSummaryView[];

  @ApiProperty({
    type: String,
    nullable: true,
    example: 'WyIyMDI2LTA5LTE4VDA5OjEyOjQ1LjEyMFoiLCI4YTNmNWMxZS03YjJkLTRmOWEtYTZlNC0wYzFiM2Q1ZjdhOTIiXQ',
    description: 'pass as `cursor` for the next page; null on the last page',
  })
  nextCursor: string | null;
}

export class PersonFreezeView {
  @ApiProperty({
    enum: FREEZE_REASON_CODES,
    nullable: true,
    example: 'FRAUD_SUSPECTED',
    description: 'null for a freeze recorded before reason codes existed',
  })
  reasonCode: FreezeReasonCode | null;

  @ApiProperty({ example: 'Suspected account takeover, ticket 4821' })
  note: string;

  @ApiProperty({
    format: 'uuid',
    example: '1be1a44c-46d6-4d37-a338-6ca27ef63e03',
    description: 'the user id of the staff member who froze',
  })
  frozenBy: string;

  @ApiProperty({ format: 'date-time', example: '2026-11-28T09:12:45.120Z' })
  frozenAt: string;
}

export class PersonIdentityView {
  @ApiProperty({ example: '+237690000001' })
  phone: string;

  @ApiProperty({ example: 'Awa' })
  firstName: string;

  @ApiProperty({ example: 'Nkoulou' })
  lastName: string;

  @ApiProperty({ type: String, nullable: true, example: 'awa@example.cm' })
  email: string | null;

  @ApiProperty({ example: 'CM' })
  countryCode: string;

  @ApiProperty({
    type: String,
    format: 'uuid',
    nullable: true,
    example: '8a3f5c1e-7b2d-4f9a-a6e4-0c1b3d5f7a92',
    description: 'null for staff',
  })
  customerId: string | null;

  @ApiProperty({ type: String, format: 'uuid', nullable: true, example: null, description: 'staff only' })
  staffId: string | null;

  @ApiProperty({ format: 'date-time', example: '2026-09-18T09:12:45.120Z' })
  createdAt: string;
}

export class PersonBalanceView {
  @ApiProperty({ format: 'uuid', example: 'd8a2616f-f2a4-4c33-b911-d40cb9c8cba9', description: 'the ledger account' })
  accountId: string;

  @ApiProperty({ enum: ['XAF', 'XOF'], example: 'XAF' })
  currency: string;

  @ApiProperty({ example: 'customer', description: 'ledger account type: customer, merchant, agent (float) or agent_commission' })
  accountType: string;

  @ApiProperty({ type: 'integer', example: 14000, description: 'what can be spent now, smallest unit' })
  available: number;

  @ApiProperty({ type: 'integer', example: 1000, description: 'held: payments in progress and operator holds, smallest unit' })
  held: number;

  @ApiProperty({ type: 'integer', example: 15000, description: 'available + held, smallest unit' })
  total: number;
}

export class PersonWalletPart {
  @ApiProperty(UNAVAILABLE)
  unavailable: string | null;

  @ApiProperty({ type: String, format: 'uuid', nullable: true, example: '4ac4573d-9a58-44ce-92cf-f46fab963969' })
  walletId: string | null;

  @ApiProperty({ type: [PersonBalanceView], nullable: true, description: 'one per account (currency and purpose)' })
  balances: PersonBalanceView[] | null;
}

export class PersonHoldView {
  @ApiProperty({ example: 'a1b2c3d4-e5f6-4a7b-8c9d-0e1f2a3b4c5d', description: 'the ledger hold' })
  holdId: string;

  @ApiProperty({ format: 'uuid', example: 'd8a2616f-f2a4-4c33-b911-d40cb9c8cba9' })
  accountId: string;

  @ApiProperty({ type: 'integer', example: 5000, description: 'smallest unit' })
  amount: number;

  @ApiProperty({ enum: ['XAF', 'XOF'], example: 'XAF' })
  currency: string;

  @ApiProperty({ example: 'ACTIVE' })
  status: string;

  @ApiProperty({ type: String, nullable: true, example: 'court order 2026/114' })
  reason: string | null;

  @ApiProperty({ type: String, format: 'date-time', nullable: true, example: '2026-11-28T09:12:45.120Z' })
  createdAt: string | null;
}

export class PersonHoldsPart {
  @ApiProperty(UNAVAILABLE)
  unavailable: string | null;

  @ApiProperty({ type: [PersonHoldView], nullable: true, description: 'operator holds on the accounts, newest first' })
  items: PersonHoldView[] | null;
}

export class LimitWindowView {
  @ApiProperty({
    enum: ['CUSTOMER', 'AGENT'],
    example: 'CUSTOMER',
    description: "whose limit: the customer's tier, or the agent's ceilings",
  })
  subject: 'CUSTOMER' | 'AGENT';

  @ApiProperty({ enum: ['XAF', 'XOF'], example: 'XAF' })
  currency: string;

  @ApiProperty({
    enum: ['DAY', 'MONTH', 'BALANCE'],
    example: 'DAY',
    description: 'DAY and MONTH: in the limits’ time zone; BALANCE: the balance cap',
  })
  window: 'DAY' | 'MONTH' | 'BALANCE';

  @ApiProperty({
    type: 'integer',
    example: 25000,
    description: 'used in the window (settled and held), or the balance for BALANCE; smallest unit',
  })
  used: number;

  @ApiProperty({ type: 'integer', example: 500000, description: 'smallest unit' })
  limit: number;

  @ApiProperty({ type: 'integer', example: 475000, description: 'limit - used, never below 0' })
  remaining: number;
}

export class PersonLimitsPart {
  @ApiProperty(UNAVAILABLE)
  unavailable: string | null;

  @ApiProperty({ type: 'integer', nullable: true, example: 3, description: 'the limits version in force' })
  version: number | null;

  @ApiProperty({ type: String, nullable: true, example: 'Africa/Douala' })
  timezone: string | null;

  @ApiProperty({ type: [LimitWindowView], nullable: true })
  windows: LimitWindowView[] | null;
}

export class PersonOperationsPart {
  @ApiProperty(UNAVAILABLE)
  unavailable: string | null;

  @ApiProperty({
    type: [TransactionView],
    nullable: true,
    description: 'the last 20 lines of the person’s history, newest first, as the person sees them',
  })
  items: TransactionView[] | null;
}

export class PersonSecurityPart {
  @ApiProperty(UNAVAILABLE)
  unavailable: string | null;

  @ApiProperty({ type: UserSecurityDoc, nullable: true, description: 'sessions, lockouts and second factor, as auth knows them' })
  value: UserSecurityDoc | null;
}

export class PersonConnectionsPart {
  @ApiProperty(UNAVAILABLE)
  unavailable: string | null;

  @ApiProperty({
    type: [MerchantConnectionViewDto],
    nullable: true,
    description: 'pending and active partner connections, newest first (at most 50)',
  })
  items: MerchantConnectionViewDto[] | null;
}

export class PersonMerchantView {
  @ApiProperty({ format: 'uuid', example: '2f6f0d3e-1c1b-4f0a-9e3d-7c5b8a9d0e1f' })
  merchantId: string;

  @ApiProperty({ example: 'Chez Awa' })
  businessName: string;

  @ApiProperty({ example: 'FOOD_AND_DRINK' })
  category: string;

  @ApiProperty({ type: PersonConnectionsPart })
  connections: PersonConnectionsPart;
}

export class MasterAgentView {
  @ApiProperty({ format: 'uuid', example: '6c2039c9-dfbc-42ef-869c-420254609afd' })
  agentId: string;

  @ApiProperty({ example: 'AG00012345' })
  agentCode: string;

  @ApiProperty({ format: 'uuid', example: '5b0e1c8e-3f0a-4c55-9a57-1f1d3c0b9e21' })
  userId: string;

  @ApiProperty({ example: 'Jean Ekambi' })
  name: string;
}

export class PersonAgentView {
  @ApiProperty({ format: 'uuid', example: '6c2039c9-dfbc-42ef-869c-420254609afd' })
  agentId: string;

  @ApiProperty({ example: 'AG00012345' })
  agentCode: string;

  @ApiProperty({ type: MasterAgentView, nullable: true, description: 'the master agent it works under' })
  masterAgent: MasterAgentView | null;

  @ApiProperty(UNAVAILABLE)
  unavailable: string | null;

  @ApiProperty({ type: [PersonBalanceView], nullable: true, description: 'float accounts' })
  float: PersonBalanceView[] | null;

  @ApiProperty({ type: [PersonBalanceView], nullable: true, description: 'commission accounts' })
  commission: PersonBalanceView[] | null;
}

/** Everything staff need about one person on one page; each part read apart. */
export class Person360View {
  @ApiProperty({ format: 'uuid', example: '5b0e1c8e-3f0a-4c55-9a57-1f1d3c0b9e21' })
  userId: string;

  @ApiProperty({ enum: PERSON_KINDS, example: 'CUSTOMER' })
  kind: PersonKind;

  @ApiProperty({ enum: APP_ROLES, example: 'CUSTOMER' })
  role: AppRole;

  @ApiProperty({ type: PersonIdentityView })
  identity: PersonIdentityView;

  @ApiProperty({ type: String, nullable: true, example: 'TIER_1', description: 'null for staff' })
  kycTier: string | null;

  @ApiProperty({ enum: CUSTOMER_STATUSES, nullable: true, example: 'active', description: 'null for staff' })
  status: CustomerStatus | null;

  @ApiProperty({ type: PersonFreezeView, nullable: true, description: 'the freeze in force (frozen only)' })
  freeze: PersonFreezeView | null;

  @ApiProperty({ type: PersonWalletPart, nullable: true, description: 'null for staff (no wallet)' })
  wallet: PersonWalletPart | null;

  @ApiProperty({ type: PersonHoldsPart, nullable: true, description: 'null for staff' })
  holds: PersonHoldsPart | null;

  @ApiProperty({ type: PersonLimitsPart, nullable: true, description: 'customers (tier limits) and agents (ceilings); null otherwise' })
  limits: PersonLimitsPart | null;

  @ApiProperty({ type: PersonOperationsPart, nullable: true, description: 'null for staff' })
  recentOperations: PersonOperationsPart | null;

  @ApiProperty({ type: PersonSecurityPart })
  security: PersonSecurityPart;

  @ApiProperty({ type: PersonMerchantView, nullable: true, description: 'merchants only' })
  merchant: PersonMerchantView | null;

  @ApiProperty({ type: PersonAgentView, nullable: true, description: 'agents and master agents only' })
  agent: PersonAgentView | null;
}

export class SessionsRevokedView {
  @ApiProperty({ format: 'uuid', example: '5b0e1c8e-3f0a-4c55-9a57-1f1d3c0b9e21' })
  userId: string;

  @ApiProperty({ type: 'integer', minimum: 0, example: 2, description: 'sessions ended by this call' })
  revoked: number;
}

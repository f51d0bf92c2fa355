import { AppException } from '@mm/errors';

export type IntentType = 'TRANSFER' | 'CASH_IN' | 'CASH_OUT';

/** What the rules need to know of an account; read from `ledger.accounts` (under the lock when executing). */
export interface RuleAccount {
  id: string;
  account_type: string;
  wallet_id: string;
}

/**
 * Which account types each intent type may move money between (spec 2: TRANSFER is peer to peer,
 * CASH_IN an agent deposits cash on a customer account, CASH_OUT an agent hands out cash). The agent
 * side of a cash operation is its float (`agent`); the customer side is a customer or a merchant
 * account. Organisation, technical and commission accounts never take part in an intent.
 */
export const INTENT_ACCOUNT_TYPES: Record<IntentType, { source: readonly string[]; destination: readonly string[] }> = {
  TRANSFER: { source: ['customer', 'merchant'], destination: ['customer', 'merchant'] },
  CASH_IN: { source: ['agent'], destination: ['customer', 'merchant'] },
  CASH_OUT: { source: ['customer', 'merchant'], destination: ['agent'] },
};

/**
 * Which side of a cash operation is the agent float, the account whose wallet holds the commission
 * account that may be credited; TRANSFER has none.
 */
export const AGENT_SIDE: Record<IntentType, 'source' | 'destination' | null> = {
  TRANSFER: null,
  CASH_IN: 'source',
  CASH_OUT: 'destination',
};

/** The one account type each technical slot of an execution context must have. */
export const SLOT_ACCOUNT_TYPES = {
  fee: 'fee_collection',
  commissionFrom: 'treasury',
  commissionTo: 'agent_commission',
} as const;

/**
 * The rules above as one JSON document: the confirm's database function (migration 1764300000000)
 * applies the same rules to the rows it locks, reading them from this parameter rather than
 * from a copy of its own (test/execution-rules-sql.test.ts compares both evaluators case by case).
 */
export const EXECUTION_RULES_JSON = JSON.stringify({
  intents: Object.fromEntries(
    (Object.keys(INTENT_ACCOUNT_TYPES) as IntentType[]).map((t) => [t, { ...INTENT_ACCOUNT_TYPES[t], agent: AGENT_SIDE[t] }]),
  ),
  slots: SLOT_ACCOUNT_TYPES,
});

/** The agent float of a cash operation: the one whose commission account may be credited. */
function agentSide(type: IntentType, source: RuleAccount, destination: RuleAccount): RuleAccount | null {
  const side = AGENT_SIDE[type];
  return side === 'source' ? source : side === 'destination' ? destination : null;
}

/** Refuses an intent whose two accounts are not of the types its intent type allows (422). */
export function checkIntentAccounts(type: IntentType, source: RuleAccount, destination: RuleAccount): void {
  const allowed = INTENT_ACCOUNT_TYPES[type];
  if (!allowed.source.includes(source.account_type) || !allowed.destination.includes(destination.account_type)) {
    throw new AppException(
      'ACCOUNT_TYPE_NOT_ALLOWED',
      `${type} moves money from ${allowed.source.join('/')} to ${allowed.destination.join('/')}, not from ${source.account_type} to ${destination.account_type}`,
    );
  }
}

export interface ContextAccounts {
  type: IntentType;
  source: RuleAccount;
  destination: RuleAccount;
  /** set when fee > 0 */
  feeAccount?: RuleAccount;
  /** set when commission > 0 */
  commissionFrom?: RuleAccount;
  commissionTo?: RuleAccount;
}

/**
 * The spec 2 double-entry rules an execution context must follow, whoever the caller is: the amount
 * moves between the intent's own accounts (compared by the caller), of the types its intent type
 * allows; a fee is credited to FEE_COLLECTION; a commission exists only on a cash operation, is
 * debited from TREASURY and credited to the commission account held in the same wallet as the
 * agent float the operation uses. Currencies are checked by the caller (every account, one currency).
 */
export function checkExecutionAccounts(c: ContextAccounts): void {
  checkIntentAccounts(c.type, c.source, c.destination);
  if (c.feeAccount && c.feeAccount.account_type !== SLOT_ACCOUNT_TYPES.fee) {
    throw new AppException('FEE_ACCOUNT_NOT_ALLOWED', `Fees cannot be credited to a ${c.feeAccount.account_type} account`);
  }
  if (c.commissionFrom || c.commissionTo) {
    const agent = agentSide(c.type, c.source, c.destination);
    if (!agent) throw new AppException('COMMISSION_NOT_ALLOWED', `${c.type} has no agent to pay a commission to`);
    if (c.commissionFrom?.account_type !== SLOT_ACCOUNT_TYPES.commissionFrom) {
      throw new AppException(
        'COMMISSION_SOURCE_NOT_ALLOWED',
        `A commission cannot be debited from a ${c.commissionFrom?.account_type} account`,
      );
    }
    if (c.commissionTo?.account_type !== SLOT_ACCOUNT_TYPES.commissionTo || c.commissionTo.wallet_id !== agent.wallet_id) {
      throw new AppException('COMMISSION_NOT_ALLOWED', "The commission must be credited to the commission account of the intent's agent");
    }
  }
}

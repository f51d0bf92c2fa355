import type { PaymentIntentRecord } from './payment-intent.types';
import type { IntentExecutionContext } from '@mm/contracts';

/** Business type codes kept in the transaction's metadata (docs/ledger.md "Transactions and entries"). */
export const TYPE_CODES: Record<PaymentIntentRecord['operationType'], string> = {
  TRANSFER: 'P2P',
  MERCHANT_PAYMENT: 'MERCHANT_PAYMENT',
  CASH_IN: 'CASH_IN_AGENT',
  CASH_OUT: 'CASH_OUT_AGENT',
};

export interface Charged {
  fee: number;
  commission: number;
  /** the credited customer's balance cap, checked by the ledger under the account's lock */
  payeeBalanceCap?: number;
}

/**
 * The executionContext of the confirm (docs/ledger.md "Transactions and entries"): the amount between the intent's
 * own accounts; the fee from the payer to the ledger's FEE_COLLECTION; on a cash operation the
 * agent's commission from the ledger's TREASURY to that agent's commission account (the ledger
 * names both technical accounts itself and refuses any other shape). The correlation id travels in
 * X-Correlation-Id and lands in the transaction metadata there.
 */
export function executionContext(intent: PaymentIntentRecord, charged: Charged, initiatorUserId: string): IntentExecutionContext {
  const cash = intent.type === 'CASH_IN' || intent.type === 'CASH_OUT';
  return {
    sourceAccountId: intent.sourceAccountId,
    destinationAccountId: intent.destinationAccountId,
    amount: intent.amount,
    currency: intent.currency,
    ...(charged.fee > 0 ? { fee: { amount: charged.fee } } : {}),
    ...(cash && intent.agent && charged.commission > 0
      ? { commission: { amount: charged.commission, accountId: intent.agent.commissionAccountId } }
      : {}),
    ...(charged.payeeBalanceCap !== undefined ? { payeeBalanceCap: charged.payeeBalanceCap } : {}),
    createdBy: initiatorUserId,
    metadata: {
      typeCode: TYPE_CODES[intent.operationType],
      ...(intent.agent ? { agentId: intent.agent.agentId } : {}),
      ...(intent.description ? { description: intent.description } : {}),
      extra: {
        operationType: intent.operationType,
        quoteId: intent.quoteId,
        riskCreateDecisionId: intent.riskCreateDecisionId,
        ...(intent.agent ? { agentCode: intent.agent.agentCode } : {}),
        ...(intent.correlationId ? { createCorrelationId: intent.correlationId } : {}),
      },
    },
  };
}

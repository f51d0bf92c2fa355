import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { type LedgerOperation, MAX_SEARCH_ACCOUNTS, decodeOperationCursor } from '@mm/contracts';
import { AppException } from '@mm/errors';
import { queryRows } from '@mm/platform';
import { CustomersService } from '../../identities/customers/customers.service';
import { type PaymentIntentRow, toRecord } from '../../intents/payment-intent.store';
import type { PartySnapshot, PaymentIntentRecord } from '../../intents/payment-intent.types';
import type { TransactionSearchQuery } from './dto/transaction-search.query';
import type { BackofficeTransactionPage, BackofficeTransactionView, StaffPartyView } from './dto/transaction-search.views';
import { OperatorSearchClient } from './operator-search.client';

function invalid(field: string, code: string, message: string): AppException {
  return new AppException('VALIDATION_ERROR', `${field}: ${message}`, { errors: [{ field, code, message }] });
}

export function staffParty(p: PartySnapshot | null | undefined): StaffPartyView | null {
  return p ? { userId: p.userId, role: p.role, displayName: p.displayName, phone: p.phone, accountId: p.accountId } : null;
}

/**
 * The back office's transaction search. The ledger holds every operation (intents whatever became
 * of them, and operators' adjustments) and does the searching and paging; a phone is first turned
 * into the person's accounts here, where people live, and each line is completed with the parties
 * the orchestrator recorded when the intent was created.
 */
@Injectable()
export class TransactionSearchService {
  constructor(
    private readonly db: DataSource,
    private readonly customers: CustomersService,
    private readonly ledger: OperatorSearchClient,
  ) {}

  async search(query: TransactionSearchQuery): Promise<BackofficeTransactionPage> {
    if (query.minAmount !== undefined && query.maxAmount !== undefined && query.minAmount > query.maxAmount) {
      throw invalid('maxAmount', 'INVALID_AMOUNT_RANGE', 'must not be below minAmount');
    }
    if (query.from && query.to && Date.parse(query.from) >= Date.parse(query.to)) {
      throw invalid('to', 'INVALID_DATE_RANGE', 'must be after from');
    }
    if (query.cursor !== undefined && !decodeOperationCursor(query.cursor)) {
      throw invalid('cursor', 'INVALID_CURSOR', 'not a cursor this API issued');
    }
    const accounts = await this.accounts(query);
    if (accounts?.length === 0) return { items: [], nextCursor: null };
    const page = await this.ledger.search({
      reference: query.reference,
      accountIds: accounts,
      type: query.type,
      status: query.status,
      minAmount: query.minAmount,
      maxAmount: query.maxAmount,
      from: query.from,
      to: query.to,
      cursor: query.cursor,
      limit: query.limit ?? 20,
    });
    const payments = await this.paymentsOf(page.items);
    return { items: page.items.map((op) => toView(op, op.intentId ? payments.get(op.intentId) : undefined)), nextCursor: page.nextCursor };
  }

  /** The orchestrator's records of these operations' intents, by ledger intent id. */
  async paymentsOf(operations: LedgerOperation[]): Promise<Map<string, PaymentIntentRecord>> {
    const ids = operations.flatMap((op) => (op.intentId ? [op.intentId] : []));
    if (ids.length === 0) return new Map();
    const rows = await queryRows<PaymentIntentRow>(
      this.db,
      `SELECT * FROM orchestrator.payment_intents WHERE ledger_intent_id = ANY($1::uuid[])`,
      [ids],
    );
    return new Map(rows.map(toRecord).map((r) => [r.ledgerIntentId!, r]));
  }

  /** The accounts to search: the phone's person's (every currency, main and commission), narrowed to `accountId`; undefined: any. */
  private async accounts(query: TransactionSearchQuery): Promise<string[] | undefined> {
    const accountId = query.accountId?.toLowerCase();
    if (query.phone === undefined) return accountId ? [accountId] : undefined;
    const person = await this.customers.findByPhone(query.phone);
    const owned = person
      ? [...Object.values(person.accounts), ...Object.values(person.commissionAccounts)].filter((id): id is string => !!id)
      : [];
    const accounts = accountId ? owned.filter((id) => id === accountId) : owned;
    return accounts.slice(0, MAX_SEARCH_ACCOUNTS);
  }
}

export function toView(op: LedgerOperation, payment: PaymentIntentRecord | undefined): BackofficeTransactionView {
  return {
    intentId: op.intentId,
    transactionId: op.transactionId,
    referenceId: op.referenceId,
    type: op.type,
    operationType: payment?.operationType ?? (op.type === 'ADJUSTMENT' ? null : op.type),
    status: op.status,
    amount: op.amount,
    fee: op.fee,
    currency: op.currency,
    sourceAccountId: op.sourceAccountId,
    destinationAccountId: op.destinationAccountId,
    sourceHolder: op.sourceHolder,
    destinationHolder: op.destinationHolder,
    payer: staffParty(payment?.payer),
    payee: staffParty(payment?.payee),
    agentCode: payment?.agent?.agentCode ?? null,
    reverses: op.reverses,
    reversedBy: op.reversedBy,
    failureReason: op.failureReason,
    at: op.at,
    completedAt: op.completedAt,
  };
}

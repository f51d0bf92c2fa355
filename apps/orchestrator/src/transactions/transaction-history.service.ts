import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { AppException } from '@mm/errors';
import { queryRows } from '@mm/platform';
import type { AuthUser } from '../access/permissions';
import { decodeCursor, encodeCursor } from '../common/cursor';
import { CustomersService } from '../identities/customers/customers.service';
import { type PaymentIntentRow, toRecord } from '../intents/payment-intent.store';
import type { PaymentIntentRecord } from '../intents/payment-intent.types';
import type { TransactionQueryDto } from './dto/transaction-query.dto';
import type { TransactionPage, TransactionView } from './dto/transaction.views';
import { STAFF_ROLES, adjustmentLine, paymentLine } from './history-lines';
import { type LedgerAdjustment, LedgerStatementsClient } from './ledger-statements.client';

/**
 * Which payments a role may read (docs/mobile-api.md "History and receipts"): an end user or a merchant the ones it
 * paid or received; an agent the cash operations it made for its customers; a master agent those
 * and its affiliated agents' (the affiliation at the time of the payment); support, compliance and
 * administrators all of them. Anything else reads nothing.
 */
function scope(user: AuthUser, me: string): string {
  // Staff read everything; the caller's id is still a bound parameter (of a known type) of the statement.
  if (STAFF_ROLES.has(user.role)) return `${me} IS NOT NULL`;
  switch (user.role) {
    case 'CUSTOMER':
    case 'MERCHANT':
      return `(payer_user_id = ${me} OR payee_user_id = ${me})`;
    case 'AGENT':
      return `agent_user_id = ${me}`;
    case 'MASTER_AGENT':
      return `(agent_user_id = ${me} OR master_agent_user_id = ${me})`;
    default:
      return 'false';
  }
}

/** A line before it is shown: its sort key (completedAt, id) and where it comes from. */
type Candidate = { key: [string, string]; payment: PaymentIntentRecord } | { key: [string, string]; adjustment: LedgerAdjustment };

const newestFirst = (a: Candidate, b: Candidate) =>
  a.key[0] !== b.key[0] ? (a.key[0] < b.key[0] ? 1 : -1) : a.key[1] === b.key[1] ? 0 : a.key[1] < b.key[1] ? 1 : -1;

/**
 * History and receipts. Payments come from the orchestrator's intent records (each holds the
 * ledger's transaction id, reference and charged fee, and the parties as they were); what else
 * moved the caller's own accounts (an operator's reversal of a payment, any other correction) only
 * the ledger knows, and is read from it, so that a history always adds up to the balance.
 */
@Injectable()
export class TransactionHistoryService {
  constructor(
    private readonly db: DataSource,
    private readonly customers: CustomersService,
    private readonly ledger: LedgerStatementsClient,
  ) {}

  async list(user: AuthUser, query: TransactionQueryDto): Promise<TransactionPage> {
    const limit = query.limit ?? 20;
    const before = query.cursor ? decodeCursor(query.cursor) : undefined;
    const [payments, adjustments] = await Promise.all([
      this.payments(user, query, before, limit + 1),
      this.ownAccounts(user).then((accounts) =>
        accounts.length === 0 ? [] : this.ledger.adjustments(accounts, { before, from: query.from, to: query.to, limit: limit + 1 }),
      ),
    ]);
    // Both lists are newest first under the same keyset; the page is the newest `limit` of the two
    // together, so that the next page starts exactly after it whichever list its lines came from.
    const candidates: Candidate[] = [
      ...payments.map((payment) => ({ key: [payment.completedAt!, payment.id] as [string, string], payment })),
      ...adjustments.map((adjustment) => ({ key: [adjustment.completedAt, adjustment.transactionId] as [string, string], adjustment })),
    ].sort(newestFirst);
    const window = candidates.slice(0, limit);
    const lines = await this.lines(user, window);
    return {
      // A type filter applies to the reversals too (by the type of what they undo) and leaves out
      // corrections; it is applied after the page is cut, so a page may hold fewer than `limit` lines.
      items: query.type ? lines.filter((l) => l.operationType === query.type) : lines,
      nextCursor: candidates.length > limit ? encodeCursor(window[window.length - 1].key) : null,
    };
  }

  /** One receipt: a payment, or a reversal or correction of the caller's accounts; anything else answers 404. */
  async receipt(user: AuthUser, referenceId: string): Promise<TransactionView> {
    const [row] = await queryRows<PaymentIntentRow>(
      this.db,
      `SELECT * FROM orchestrator.payment_intents WHERE reference_id = $1 AND stage = 'SETTLED' AND ${scope(user, '$2::uuid')}`,
      [referenceId, user.userId],
    );
    if (row) {
      const record = toRecord(row);
      return (await this.lines(user, [{ key: [record.completedAt!, record.id], payment: record }]))[0];
    }
    const accounts = await this.ownAccounts(user);
    const [adjustment] = accounts.length === 0 ? [] : await this.ledger.adjustments(accounts, { referenceId, limit: 1 });
    if (!adjustment) throw new AppException('TRANSACTION_NOT_FOUND');
    return (await this.lines(user, [{ key: [adjustment.completedAt, adjustment.transactionId], adjustment }]))[0];
  }

  /** The views of a page: payments marked with their reversal, reversals shown as the payment they undo. */
  private async lines(user: AuthUser, window: Candidate[]): Promise<TransactionView[]> {
    const paymentTxIds = window.flatMap((c) => ('payment' in c ? [c.payment.transactionId!] : []));
    const reversedTxIds = window.flatMap((c) =>
      'adjustment' in c && c.adjustment.reversalOf ? [c.adjustment.reversalOf.transactionId] : [],
    );
    const [links, originals] = await Promise.all([this.ledger.reversals(paymentTxIds), this.paymentsByTransaction(reversedTxIds)]);
    const reversedBy = new Map(links.map((l) => [l.reversalOf, l.referenceId]));
    return window.map((c) =>
      'payment' in c
        ? paymentLine(c.payment, user, reversedBy.get(c.payment.transactionId!) ?? null)
        : adjustmentLine(c.adjustment, c.adjustment.reversalOf ? originals.get(c.adjustment.reversalOf.transactionId) : undefined, user),
    );
  }

  private async payments(
    user: AuthUser,
    query: TransactionQueryDto,
    before: [string, string] | undefined,
    count: number,
  ): Promise<PaymentIntentRecord[]> {
    const params: unknown[] = [];
    const where = [`stage = 'SETTLED'`];
    const add = (sql: (n: string) => string, value: unknown) => {
      params.push(value);
      where.push(sql(`$${params.length}`));
    };
    add((n) => scope(user, `${n}::uuid`), user.userId);
    if (query.type) add((n) => `operation_type = ${n}`, query.type);
    if (query.from) add((n) => `completed_at >= ${n}::timestamptz`, query.from);
    if (query.to) add((n) => `completed_at < ${n}::timestamptz`, query.to);
    if (before) {
      params.push(before[0], before[1]);
      where.push(`(completed_at, id) < ($${params.length - 1}::timestamptz, $${params.length}::uuid)`);
    }
    params.push(count);
    const rows = await queryRows<PaymentIntentRow>(
      this.db,
      `SELECT * FROM orchestrator.payment_intents WHERE ${where.join(' AND ')} ORDER BY completed_at DESC, id DESC LIMIT $${params.length}`,
      params,
    );
    return rows.map(toRecord);
  }

  /** The payments behind reversals, by ledger transaction id (the caller was a party: the reversal moved its accounts). */
  private async paymentsByTransaction(transactionIds: string[]): Promise<Map<string, PaymentIntentRecord>> {
    if (transactionIds.length === 0) return new Map();
    const rows = await queryRows<PaymentIntentRow>(
      this.db,
      `SELECT * FROM orchestrator.payment_intents WHERE transaction_id = ANY($1::uuid[]) AND stage = 'SETTLED'`,
      [transactionIds],
    );
    return new Map(rows.map(toRecord).map((r) => [r.transactionId!, r]));
  }

  /** The caller's own ledger accounts (main and commission, every currency); none for a user without a wallet. */
  private async ownAccounts(user: AuthUser): Promise<string[]> {
    const customer = await this.customers.findByUserId(user.userId);
    if (!customer) return [];
    return [...Object.values(customer.accounts), ...Object.values(customer.commissionAccounts)].filter((id): id is string => !!id);
  }
}

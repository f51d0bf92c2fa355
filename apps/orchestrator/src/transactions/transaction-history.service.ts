import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { AppException } from '@mm/errors';
import { queryRows } from '@mm/platform';
import type { AuthUser } from '../access/permissions';
import { decodeCursor, encodeCursor } from '../common/cursor';
import { type PaymentIntentRow, toRecord } from '../intents/payment-intent.store';
import type { PaymentIntentRecord } from '../intents/payment-intent.types';
import { maskPhone } from '../intents/phone-prefixes';
import type { TransactionQueryDto } from './dto/transaction-query.dto';
import type { TransactionPage, TransactionView } from './dto/transaction.views';

const STAFF_ROLES = new Set(['SUPPORT', 'COMPLIANCE', 'ADMIN']);

/**
 * Which payments a role may read (spec 2 "Authentication" 2): an end user or a merchant the ones it
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

/**
 * History and receipts of completed payments, from the orchestrator's intent records (each one
 * holds the ledger's transaction id, reference and charged fee, and the parties as they were).
 */
@Injectable()
export class TransactionHistoryService {
  constructor(private readonly db: DataSource) {}

  async list(user: AuthUser, query: TransactionQueryDto): Promise<TransactionPage> {
    const limit = query.limit ?? 20;
    const params: unknown[] = [];
    const where = [`status = 'SUCCEEDED'`];
    const add = (sql: (n: string) => string, value: unknown) => {
      params.push(value);
      where.push(sql(`$${params.length}`));
    };
    add((n) => scope(user, `${n}::uuid`), user.userId);
    if (query.type) add((n) => `operation_type = ${n}`, query.type);
    if (query.from) add((n) => `completed_at >= ${n}::timestamptz`, query.from);
    if (query.to) add((n) => `completed_at < ${n}::timestamptz`, query.to);
    if (query.cursor) {
      const [completedAt, id] = decodeCursor(query.cursor);
      params.push(completedAt, id);
      where.push(`(completed_at, id) < ($${params.length - 1}::timestamptz, $${params.length}::uuid)`);
    }
    params.push(limit + 1);
    const rows = await queryRows<PaymentIntentRow>(
      this.db,
      `SELECT * FROM orchestrator.payment_intents WHERE ${where.join(' AND ')} ORDER BY completed_at DESC, id DESC LIMIT $${params.length}`,
      params,
    );
    const page = rows.slice(0, limit).map(toRecord);
    const last = rows.length > limit ? page[page.length - 1] : undefined;
    return {
      items: page.map((r) => view(r, user)),
      nextCursor: last ? encodeCursor([last.completedAt!, last.id]) : null,
    };
  }

  /** One receipt; a payment the caller may not read answers like an unknown reference (404). */
  async receipt(user: AuthUser, referenceId: string): Promise<TransactionView> {
    const [row] = await queryRows<PaymentIntentRow>(
      this.db,
      `SELECT * FROM orchestrator.payment_intents WHERE reference_id = $1 AND status = 'SUCCEEDED' AND ${scope(user, '$2::uuid')}`,
      [referenceId, user.userId],
    );
    if (!row) throw new AppException('TRANSACTION_NOT_FOUND');
    return view(toRecord(row), user);
  }
}

function view(r: PaymentIntentRecord, user: AuthUser): TransactionView {
  const direction = r.payer.userId === user.userId ? 'DEBIT' : r.payee.userId === user.userId ? 'CREDIT' : null;
  const seesCommission =
    STAFF_ROLES.has(user.role) || (r.agent !== null && (r.agent.userId === user.userId || r.agent.masterAgentUserId === user.userId));
  const fee = r.chargedFee ?? 0;
  return {
    referenceId: r.referenceId!,
    transactionId: r.transactionId!,
    intentId: r.ledgerIntentId!,
    type: r.type,
    operationType: r.operationType,
    direction,
    amount: r.amount,
    fee,
    total: r.amount + fee,
    commission: seesCommission && r.agent ? (r.chargedCommission ?? 0) : null,
    currency: r.currency,
    description: r.description,
    payer: { displayName: r.payer.displayName, phone: maskPhone(r.payer.phone) },
    payee: { displayName: r.payee.displayName, phone: maskPhone(r.payee.phone) },
    agent: r.agent ? { displayName: r.agent.displayName, phone: maskPhone(r.agent.phone), agentCode: r.agent.agentCode } : null,
    completedAt: r.completedAt!,
  };
}

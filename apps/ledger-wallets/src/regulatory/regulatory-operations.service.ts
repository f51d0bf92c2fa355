import { Injectable } from '@nestjs/common';
import {
  type RegulatoryOperationPageView,
  type RegulatoryOperationType,
  type RegulatoryOperationView,
  type RegulatoryPartyView,
  type SameShape,
  decodeRegulatoryCursor,
  encodeRegulatoryCursor,
} from '@mm/contracts';
import { AppException } from '@mm/errors';
import { LedgerDb } from '../db/ledger-db.service';
import { toMoney } from '../db/money';
import type { RegulatoryOperationsQueryDto } from './regulatory-operations.query';
import { REGULATORY_OPERATIONS_SQL } from './regulatory-operations.sql';

/** The longest window one read may cover: a daily report asks for 24 hours. */
const MAX_WINDOW_MS = 7 * 86_400_000;

interface Row {
  transaction_id: string;
  reference_id: string;
  type: RegulatoryOperationType;
  amount: string;
  fee: string;
  currency: string;
  completed_key: string;
  agent_id: string | null;
  s_id: string;
  s_type: string;
  s_holder: string;
  s_owner_type: string;
  s_owner_id: string;
  d_id: string;
  d_type: string;
  d_holder: string;
  d_owner_type: string;
  d_owner_id: string;
}

/**
 * The succeeded customer operations (CASH_IN, CASH_OUT, TRANSFER: every transaction an intent
 * committed) of one currency completed in [from, to) at or above an amount, with both accounts and
 * their owners, oldest first. Adjustments (corrections, reversals) are operators' acts, not
 * customers' operations, and are left out. Everything read here is immutable once committed, so
 * the same window always reads the same rows.
 */
@Injectable()
export class RegulatoryOperationsService {
  constructor(private readonly db: LedgerDb) {}

  async operations(query: RegulatoryOperationsQueryDto): Promise<RegulatoryOperationPageView> {
    const from = Date.parse(query.from);
    const to = Date.parse(query.to);
    if (!(to > from) || to - from > MAX_WINDOW_MS) {
      throw new AppException('REPORT_PERIOD_INVALID', '`to` must be after `from`, by at most 7 days');
    }
    let after: [string, string] | null = null;
    if (query.cursor !== undefined) {
      after = decodeRegulatoryCursor(query.cursor);
      if (!after) {
        throw new AppException('VALIDATION_ERROR', 'cursor: not a cursor this API issued', {
          errors: [{ field: 'cursor', code: 'INVALID_CURSOR', message: 'not a cursor this API issued' }],
        });
      }
    }
    const limit = query.limit ?? 500;
    const rows = await this.db.query<Row>(REGULATORY_OPERATIONS_SQL, [
      query.currency,
      query.minAmount,
      query.from,
      query.to,
      after?.[0] ?? null,
      after?.[1] ?? null,
      limit + 1,
    ]);
    const page = rows.slice(0, limit);
    const last = page[page.length - 1];
    return {
      items: page.map(toView),
      nextCursor: rows.length > limit ? encodeRegulatoryCursor(last.completed_key, last.reference_id) : null,
    };
  }
}

function party(id: string, type: string, holder: string, ownerType: string, ownerId: string): RegulatoryPartyView {
  return { accountId: id, accountType: type, holder, ownerType, ownerId };
}

function toView(r: Row): RegulatoryOperationView {
  return {
    transactionId: r.transaction_id,
    reference: r.reference_id,
    type: r.type,
    amount: toMoney(r.amount),
    fee: toMoney(r.fee),
    currency: r.currency.trim(),
    completedAt: r.completed_key,
    agentId: r.agent_id,
    source: party(r.s_id, r.s_type, r.s_holder, r.s_owner_type, r.s_owner_id),
    destination: party(r.d_id, r.d_type, r.d_holder, r.d_owner_type, r.d_owner_id),
  };
}

// The page built here is the contract's shape, field for field.
const _shape: SameShape<ReturnType<typeof toView>, RegulatoryOperationView> = true;
void _shape;

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
    const rows = await this.db.query<Row>(
      `SELECT t.id AS transaction_id, t.reference_id, t.type, t.amount::text, t.fee::text, t.currency,
              to_char(t.completed_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS completed_key, i.agent_id,
              sa.id AS s_id, sa.account_type AS s_type, sa.holder AS s_holder, sw.owner_type AS s_owner_type, sw.owner_id AS s_owner_id,
              da.id AS d_id, da.account_type AS d_type, da.holder AS d_holder, dw.owner_type AS d_owner_type, dw.owner_id AS d_owner_id
         FROM ledger.transactions t
         JOIN ledger.transaction_intents i ON i.id = t.intent_id
         JOIN ledger.accounts sa ON sa.id = i.source_account_id
         JOIN ledger.wallets sw ON sw.id = sa.wallet_id
         JOIN ledger.accounts da ON da.id = i.destination_account_id
         JOIN ledger.wallets dw ON dw.id = da.wallet_id
        WHERE t.intent_id IS NOT NULL AND t.type IN ('CASH_IN', 'CASH_OUT', 'TRANSFER')
          AND t.currency = $1 AND t.amount >= $2
          AND t.completed_at >= $3::timestamptz AND t.completed_at < $4::timestamptz
          AND ($5::timestamptz IS NULL OR (t.completed_at, t.reference_id) > ($5::timestamptz, $6::text))
        ORDER BY t.completed_at, t.reference_id
        LIMIT $7`,
      [query.currency, query.minAmount, query.from, query.to, after?.[0] ?? null, after?.[1] ?? null, limit + 1],
    );
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

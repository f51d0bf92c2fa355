import { Injectable } from '@nestjs/common';
import {
  type LedgerIntentEvent,
  type LedgerJournalEntry,
  type LedgerOperation,
  type LedgerOperationPage,
  type LedgerOperationStory,
  type OperationSearchStatus,
  type OperationSearchType,
  decodeOperationCursor,
  encodeOperationCursor,
} from '@mm/contracts';
import { AppException } from '@mm/errors';
import { LedgerDb } from '../db/ledger-db.service';
import { iso, toMoney } from '../db/money';
import type { OperationSearchQueryDto } from './dto/operation-search.query';

interface OperationRow {
  row_id: string;
  intent_id: string | null;
  transaction_id: string | null;
  reference_id: string | null;
  type: OperationSearchType;
  status: OperationSearchStatus;
  amount: string;
  fee: string;
  currency: string;
  source_account_id: string | null;
  destination_account_id: string | null;
  source_holder: string | null;
  destination_holder: string | null;
  reversal_of: string | null;
  reverses_reference: string | null;
  reversed_by_id: string | null;
  reversed_by_reference: string | null;
  failure_reason: string | null;
  at: Date;
  at_key: string;
  completed_at: Date | null;
}

interface Filters {
  reference?: string;
  intentId?: string;
  accountIds?: string[];
  type?: OperationSearchType;
  status?: OperationSearchStatus;
  minAmount?: number;
  maxAmount?: number;
  from?: string;
  to?: string;
  before?: [string, string];
  limit: number;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The back office's search over what the ledger holds: intents (with the transaction each
 * committed) and ADJUSTMENT transactions (operators' corrections and reversals, which have no
 * intent). Each half is read newest first through its own index (IDX_transaction_intents_created,
 * IDX_transactions_adjustments_completed; account filters through the intents' source and
 * destination indexes and ledger.adjustment_accounts), cut at the page size, and the two are merged.
 * The keyset is (time to the microsecond, row id), so a page never repeats or skips a row.
 */
@Injectable()
export class OperatorSearchService {
  constructor(private readonly db: LedgerDb) {}

  async search(query: OperationSearchQueryDto): Promise<LedgerOperationPage> {
    let before: [string, string] | undefined;
    if (query.cursor !== undefined) {
      const key = decodeOperationCursor(query.cursor);
      if (!key) {
        throw new AppException('VALIDATION_ERROR', 'cursor: not a cursor this API issued', {
          errors: [{ field: 'cursor', code: 'INVALID_CURSOR', message: 'not a cursor this API issued' }],
        });
      }
      before = key;
    }
    const limit = query.limit ?? 20;
    const rows = await this.rows({
      reference: query.reference,
      accountIds: query.accountIds?.toLowerCase().split(','),
      type: query.type,
      status: query.status,
      minAmount: query.minAmount,
      maxAmount: query.maxAmount,
      from: query.from,
      to: query.to,
      before,
      limit: limit + 1,
    });
    const page = rows.slice(0, limit);
    const last = page[page.length - 1];
    return { items: page.map(toOperation), nextCursor: rows.length > limit ? encodeOperationCursor(last.at_key, last.row_id) : null };
  }

  /** One operation by its transaction reference or its intent id, with its journal and entries. */
  async story(key: string): Promise<LedgerOperationStory> {
    const filter = UUID.test(key) ? { intentId: key.toLowerCase() } : { reference: key };
    const [row] = await this.rows({ ...filter, limit: 1 });
    if (!row) throw new AppException('TRANSACTION_NOT_FOUND');
    const transactions = [row.transaction_id, row.reversed_by_id].filter((id): id is string => !!id);
    const [events, entries, extra] = await Promise.all([
      row.intent_id
        ? this.db.query<{ from_status: string | null; to_status: string; event: string; actor_id: string | null; created_at: Date }>(
            `SELECT from_status, to_status, event, actor_id, created_at FROM ledger.intent_events
              WHERE intent_id = $1 ORDER BY created_at, id`,
            [row.intent_id],
          )
        : [],
      transactions.length === 0
        ? []
        : this.db.query<{
            id: string;
            transaction_id: string;
            account_id: string;
            account_type: string;
            holder: string;
            kind: 'DEBIT' | 'CREDIT';
            amount: string;
            currency: string;
            counterparty_ledger_id: string;
            created_by: string;
            created_at: Date;
          }>(
            `SELECT l.id, l.transaction_id, l.account_id, a.account_type, a.holder, l.kind, l.amount::text, l.currency, l.counterparty_ledger_id,
                    l.created_by, l.created_at
               FROM ledger.ledgers l JOIN ledger.accounts a ON a.id = l.account_id
              WHERE l.transaction_id = ANY($1::uuid[])
              ORDER BY array_position($1::uuid[], l.transaction_id), l.created_at, l.kind DESC, l.id`,
            [transactions],
          ),
      this.db.query<{
        initiated_by: string | null;
        agent_id: string | null;
        qr_token: string | null;
        expires_at: Date | null;
        reason: string | null;
      }>(
        row.intent_id
          ? `SELECT initiated_by, agent_id, qr_token, expires_at, NULL AS reason FROM ledger.transaction_intents WHERE id = $1`
          : `SELECT NULL AS initiated_by, NULL AS agent_id, NULL AS qr_token, NULL::timestamptz AS expires_at, metadata->>'reason' AS reason
               FROM ledger.transactions WHERE id = $1`,
        [row.intent_id ?? row.transaction_id],
      ),
    ]);
    return {
      operation: toOperation(row),
      events: events.map((e): LedgerIntentEvent => ({
        fromStatus: e.from_status,
        toStatus: e.to_status,
        event: e.event,
        actorId: e.actor_id,
        at: iso(e.created_at)!,
      })),
      entries: entries.map((l): LedgerJournalEntry => ({
        entryId: l.id,
        transactionId: l.transaction_id,
        accountId: l.account_id,
        accountType: l.account_type,
        holder: l.holder,
        direction: l.kind,
        amount: toMoney(l.amount),
        currency: l.currency.trim(),
        counterpartyEntryId: l.counterparty_ledger_id,
        createdBy: l.created_by,
        createdAt: iso(l.created_at)!,
      })),
      initiatedBy: extra[0]?.initiated_by ?? null,
      agentId: extra[0]?.agent_id ?? null,
      qrToken: extra[0]?.qr_token ?? null,
      expiresAt: iso(extra[0]?.expires_at),
      reason: extra[0]?.reason ?? null,
    };
  }

  private rows(f: Filters): Promise<OperationRow[]> {
    const params: unknown[] = [];
    const param = (value: unknown) => {
      params.push(value);
      return `$${params.length}`;
    };
    // the intents' half (i: intent, t: the transaction it committed) and the adjustments' half (t)
    const intents: string[] = [];
    const adjustments: string[] = ['t.intent_id IS NULL'];
    if (f.type === 'ADJUSTMENT') intents.push('false');
    if (f.intentId !== undefined) adjustments.push('false');
    if (f.type && f.type !== 'ADJUSTMENT') {
      intents.push(`i.type = ${param(f.type)}`);
      adjustments.push('false');
    }
    if (f.status) {
      intents.push(`i.status = ${param(f.status)}`);
      if (f.status !== 'SUCCEEDED') adjustments.push('false');
    }
    if (f.intentId) intents.push(`i.id = ${param(f.intentId)}::uuid`);
    if (f.reference) {
      const p = param(f.reference);
      intents.push(`t.reference_id = ${p}`);
      adjustments.push(`t.reference_id = ${p}`);
    }
    if (f.accountIds) {
      const p = param(f.accountIds);
      intents.push(`(i.source_account_id = ANY(${p}::uuid[]) OR i.destination_account_id = ANY(${p}::uuid[]))`);
      adjustments.push(`t.id IN (SELECT transaction_id FROM ledger.adjustment_accounts WHERE account_id = ANY(${p}::uuid[]))`);
    }
    if (f.minAmount !== undefined) {
      const p = param(f.minAmount);
      intents.push(`i.amount >= ${p}`);
      adjustments.push(`t.amount >= ${p}`);
    }
    if (f.maxAmount !== undefined) {
      const p = param(f.maxAmount);
      intents.push(`i.amount <= ${p}`);
      adjustments.push(`t.amount <= ${p}`);
    }
    if (f.from) {
      const p = param(f.from);
      intents.push(`i.created_at >= ${p}::timestamptz`);
      adjustments.push(`t.completed_at >= ${p}::timestamptz`);
    }
    if (f.to) {
      const p = param(f.to);
      intents.push(`i.created_at < ${p}::timestamptz`);
      adjustments.push(`t.completed_at < ${p}::timestamptz`);
    }
    if (f.before) {
      const at = param(f.before[0]);
      const id = param(f.before[1]);
      intents.push(`(i.created_at, i.id) < (${at}::timestamptz, ${id}::uuid)`);
      adjustments.push(`(t.completed_at, t.id) < (${at}::timestamptz, ${id}::uuid)`);
    }
    const limit = param(f.limit);
    const where = (conditions: string[]) => (conditions.length ? `WHERE ${conditions.join(' AND ')}` : '');
    return this.db.query<OperationRow>(
      `SELECT x.*, to_char(x.at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS at_key,
              sa.holder AS source_holder, da.holder AS destination_holder, o.reference_id AS reverses_reference,
              r.id AS reversed_by_id, r.reference_id AS reversed_by_reference
         FROM (
           (SELECT i.id AS row_id, i.id AS intent_id, t.id AS transaction_id, t.reference_id, i.type, i.status, i.amount::text,
                   COALESCE(t.fee, i.fee)::text AS fee, i.currency, i.source_account_id, i.destination_account_id,
                   NULL::uuid AS reversal_of, i.failure_reason, i.created_at AS at, t.completed_at
              FROM ledger.transaction_intents i LEFT JOIN ledger.transactions t ON t.intent_id = i.id
              ${where(intents)}
             ORDER BY i.created_at DESC, i.id DESC LIMIT ${limit})
           UNION ALL
           (SELECT t.id, NULL::uuid, t.id, t.reference_id, t.type, 'SUCCEEDED', t.amount::text, t.fee::text, t.currency,
                   NULL::uuid, NULL::uuid, t.reversal_of, NULL::text, t.completed_at, t.completed_at
              FROM ledger.transactions t
              ${where(adjustments)}
             ORDER BY t.completed_at DESC, t.id DESC LIMIT ${limit})
         ) x
         LEFT JOIN ledger.accounts sa ON sa.id = x.source_account_id
         LEFT JOIN ledger.accounts da ON da.id = x.destination_account_id
         LEFT JOIN ledger.transactions o ON o.id = x.reversal_of
         LEFT JOIN ledger.transactions r ON r.reversal_of = x.transaction_id
        ORDER BY x.at DESC, x.row_id DESC
        LIMIT ${limit}`,
      params,
    );
  }
}

function toOperation(r: OperationRow): LedgerOperation {
  return {
    intentId: r.intent_id,
    transactionId: r.transaction_id,
    referenceId: r.reference_id,
    type: r.type,
    status: r.status,
    amount: toMoney(r.amount),
    fee: toMoney(r.fee),
    currency: r.currency.trim(),
    sourceAccountId: r.source_account_id,
    destinationAccountId: r.destination_account_id,
    sourceHolder: r.source_holder,
    destinationHolder: r.destination_holder,
    reverses: r.reversal_of ? { transactionId: r.reversal_of, referenceId: r.reverses_reference! } : null,
    reversedBy: r.reversed_by_id ? { transactionId: r.reversed_by_id, referenceId: r.reversed_by_reference! } : null,
    failureReason: r.failure_reason,
    at: r.at_key,
    completedAt: iso(r.completed_at),
  };
}

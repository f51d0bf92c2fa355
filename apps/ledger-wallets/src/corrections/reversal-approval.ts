import { randomUUID } from 'node:crypto';
import { AppException } from '@mm/errors';
import { currentContext } from '@mm/platform';
import type { LedgerDb } from '../db/ledger-db.service';
import { moneyLockKeys } from '../db/lock-keys';
import { toMoney } from '../db/money';
import { isUniqueViolation } from '../db/sql-errors';
import { uuidArrayLit, uuidLit } from '../db/sql-literal';
import { type EntryLeg, balanceDeltas } from '../execution/double-entry';
import { newReferenceId } from '../execution/reference-id';
import { insufficientMessage } from '../intents/intent-view';
import { MAY_GO_NEGATIVE, checkDecision } from './correction-decision';
import { CORRECTION_ROW_COLUMNS, type CorrectionRow } from './correction-view';
import type { CorrectionsSettings } from './corrections.settings';
import type { ApproveCorrectionDto } from './dto/decide-correction.dto';
import type { OperatorIdentity } from './operator-tokens.service';
import { readReversalTarget } from './reversal-target';

export interface OriginalEntry {
  id: string;
  account_id: string;
  kind: 'DEBIT' | 'CREDIT';
  amount: string;
  counterparty_ledger_id: string;
}

interface LockedAccount {
  id: string;
  account_type: string;
  available_balance: string;
}

/**
 * The approval of a REVERSAL: the inverse of every entry of the original transaction T (same account,
 * same amount, DEBIT ↔ CREDIT, the pairs linked again between the new entries), written in ONE
 * SERIALIZABLE transaction with the correction and then every account of T locked in the ledger's one
 * order (correction, accounts ascending): the reversal transaction (`reversal_of` = T), its entries,
 * every balance, the decision and its journal rows. Each account the inverse takes money from must
 * hold it (treasury and suspense excepted), or nothing is written and the request stays pending.
 *
 * A plain class owned by CorrectionApproval (which hands it its collaborators), not a provider.
 */
export class ReversalApproval {
  constructor(
    private readonly db: LedgerDb,
    private readonly settings: CorrectionsSettings,
    private readonly referencePrefix: string,
  ) {}

  async execute(before: CorrectionRow, checker: OperatorIdentity, dto: ApproveCorrectionDto): Promise<void> {
    const original = before.reversed_transaction_id!;
    // Entries are append-only: read once, with the transaction, outside the lock.
    const target = await readReversalTarget(this.db, { id: original });
    if (!target) throw new AppException('TRANSACTION_NOT_FOUND');
    const legs = inverseOf(target.entries);
    const deltas = balanceDeltas(legs);
    const accounts = deltas.map((d) => d.id); // ascending
    const lockedRead = `WITH c AS (SELECT ${CORRECTION_ROW_COLUMNS} FROM ledger.corrections WHERE id = ${uuidLit(before.id)} FOR UPDATE),
           a AS (SELECT id, account_type, available_balance::text FROM ledger.accounts WHERE id = ANY(${uuidArrayLit(accounts)}) ORDER BY id FOR UPDATE)
      SELECT (SELECT row_to_json(c) FROM c) AS correction, (SELECT json_agg(a ORDER BY a.id) FROM a) AS accounts`;

    return this.db.withSession((session) =>
      this.db
        .serializable(
          session,
          moneyLockKeys(accounts, before.id),
          async (s, rows) => {
            const locked = rows[0] as { correction: CorrectionRow; accounts: LockedAccount[] };
            const correction = locked.correction;
            checkDecision(correction, checker, this.settings); // again, under the lock
            for (const delta of deltas) {
              const account = locked.accounts.find((a) => a.id === delta.id)!;
              const available = toMoney(account.available_balance);
              if (delta.available < 0 && !MAY_GO_NEGATIVE.includes(account.account_type) && available < -delta.available) {
                throw new AppException(
                  'INSUFFICIENT_BALANCE',
                  `Account ${account.id} (${account.account_type}): ${insufficientMessage(available, -delta.available)}`,
                );
              }
            }
            const transactionId = randomUUID();
            const referenceId = newReferenceId(this.referencePrefix);
            const correlationId = currentContext()?.correlationId ?? null;
            const metadata = {
              typeCode: 'REVERSAL',
              correctionId: correction.id,
              reversalOf: original,
              reversalOfReference: target.referenceId,
              makerId: correction.maker_id,
              checkerId: checker.id,
              reason: correction.reason,
              correlationId,
              agentId: null,
            };
            await s.query(
              `WITH t AS (
                 INSERT INTO ledger.transactions (id, reference_id, type, amount, fee, currency, created_by, initiated_at, completed_at, metadata, reversal_of)
                 VALUES ($1, $2, 'ADJUSTMENT', $3, $4, $5, $6, $7, now(), $8::jsonb, $9) RETURNING id),
               l AS (
                 INSERT INTO ledger.ledgers (id, transaction_id, account_id, kind, amount, currency, counterparty_ledger_id, created_by)
                 SELECT e.id, t.id, e.account_id, e.kind, e.amount, $5, e.counterparty_id, $6
                 FROM t CROSS JOIN jsonb_to_recordset($10::jsonb) AS e(id uuid, account_id uuid, kind text, amount bigint, counterparty_id uuid)),
               b AS (
                 UPDATE ledger.accounts a SET balance = a.balance + d.balance, available_balance = a.available_balance + d.available, updated_at = now()
                 FROM jsonb_to_recordset($11::jsonb) AS d(id uuid, balance bigint, available bigint) WHERE a.id = d.id),
               u AS (
                 UPDATE ledger.corrections SET status = 'EXECUTED', checker_id = $12, checker_roles = $13, decided_at = now(),
                   decision_reason = $14, transaction_id = $1
                 WHERE id = $15 RETURNING id)
               INSERT INTO ledger.correction_events (correction_id, event, actor_id, actor_roles, reason, metadata)
               SELECT id, 'approved', $12, $13, $14, $16::jsonb FROM u
               UNION ALL SELECT id, 'executed', $12, $13, NULL, $17::jsonb FROM u`,
              [
                transactionId,
                referenceId,
                toMoney(correction.amount),
                target.fee,
                correction.currency.trim(),
                correction.maker_id,
                new Date(correction.submitted_at),
                JSON.stringify(metadata),
                original,
                JSON.stringify(legs),
                JSON.stringify(deltas),
                checker.id,
                checker.roles,
                dto.reason ?? null,
                correction.id,
                JSON.stringify({ tokenId: checker.tokenId, correlationId }),
                JSON.stringify({
                  transactionId,
                  referenceId,
                  reversalOf: original,
                  reversalOfReference: target.referenceId,
                  entries: legs.length,
                }),
              ],
            );
          },
          lockedRead,
        )
        .catch((error: unknown) => {
          // Only a write outside this service (raw SQL) can have reversed it already: the database keeps it to once.
          if (isUniqueViolation(error, 'UQ_transactions_reversal_of')) throw new AppException('TRANSACTION_ALREADY_REVERSED');
          throw error;
        }),
    );
  }
}

/**
 * The exact inverse of a transaction's entries: for each one, an entry on the same account for the
 * same amount in the other direction, with fresh ids; an entry's counterparty becomes the inverse of
 * its counterparty, so the new entries pair up exactly as the originals did.
 */
export function inverseOf(entries: OriginalEntry[]): EntryLeg[] {
  const ids = new Map(entries.map((e) => [e.id, randomUUID()]));
  return entries.map((e) => {
    const counterparty = ids.get(e.counterparty_ledger_id);
    if (!counterparty) {
      throw new AppException('LEDGER_INTEGRITY_VIOLATION', `Entry ${e.id} is paired with an entry outside its transaction`);
    }
    return {
      id: ids.get(e.id)!,
      account_id: e.account_id,
      kind: e.kind === 'DEBIT' ? 'CREDIT' : 'DEBIT',
      amount: toMoney(e.amount),
      counterparty_id: counterparty,
    };
  });
}

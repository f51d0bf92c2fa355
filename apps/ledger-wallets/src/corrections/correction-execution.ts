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

/** What an approved correction writes: its entries and what sets one kind apart from the other. */
export interface CorrectionEntries {
  /** the new transaction's entries, paired */
  legs: EntryLeg[];
  /** the new transaction's fee column */
  fee: number;
  /** the transaction a reversal undoes; null for an ACCOUNT correction */
  reversalOf: string | null;
  /** the new transaction's metadata, from the correction as read under the lock */
  metadata(correction: CorrectionRow, correlationId: string | null): Record<string, unknown>;
  /** the metadata of the `executed` journal row */
  executed(ids: { transactionId: string; referenceId: string }): Record<string, unknown>;
}

/**
 * The one path by which an approval moves money, for both kinds of correction. In ONE SERIALIZABLE
 * transaction, with the correction and then every account the entries touch locked in the ledger's
 * one order (correction, accounts ascending): the decision checked again under the lock (a
 * concurrent decision may have won), each account the entries take money from checked to hold it
 * (treasury and suspense excepted: nothing is written and the request stays pending otherwise), and
 * in one statement the ADJUSTMENT transaction, its entries, every balance, the decision and its
 * `approved` and `executed` journal rows.
 */
export async function executeCorrectionEntries(
  db: LedgerDb,
  settings: CorrectionsSettings,
  referencePrefix: string,
  request: { before: CorrectionRow; checker: OperatorIdentity; dto: ApproveCorrectionDto },
  entries: CorrectionEntries,
): Promise<void> {
  const { before, checker, dto } = request;
  const deltas = balanceDeltas(entries.legs);
  const accounts = deltas.map((d) => d.id); // ascending
  const lockedRead = `WITH c AS (SELECT ${CORRECTION_ROW_COLUMNS} FROM ledger.corrections WHERE id = ${uuidLit(before.id)} FOR UPDATE),
         a AS (SELECT id, account_type, available_balance::text FROM ledger.accounts WHERE id = ANY(${uuidArrayLit(accounts)}) ORDER BY id FOR UPDATE)
    SELECT (SELECT row_to_json(c) FROM c) AS correction, (SELECT json_agg(a ORDER BY a.id) FROM a) AS accounts`;

  await db
    .withSession((session) =>
      db.serializable(
        session,
        moneyLockKeys(accounts, before.id),
        async (s, rows) => {
          const locked = rows[0] as {
            correction: CorrectionRow;
            accounts: { id: string; account_type: string; available_balance: string }[];
          };
          const correction = locked.correction;
          checkDecision(correction, checker, settings); // again, under the lock
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
          const referenceId = newReferenceId(referencePrefix);
          const correlationId = currentContext()?.correlationId ?? null;
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
              entries.fee,
              correction.currency.trim(),
              correction.maker_id,
              new Date(correction.submitted_at),
              JSON.stringify(entries.metadata(correction, correlationId)),
              entries.reversalOf,
              JSON.stringify(entries.legs),
              JSON.stringify(deltas),
              checker.id,
              checker.roles,
              dto.reason ?? null,
              correction.id,
              JSON.stringify({ tokenId: checker.tokenId, correlationId }),
              JSON.stringify(entries.executed({ transactionId, referenceId })),
            ],
          );
        },
        lockedRead,
      ),
    )
    .catch((error: unknown) => {
      // Only a write outside this service (raw SQL) can have reversed it already: the database keeps it to once.
      if (isUniqueViolation(error, 'UQ_transactions_reversal_of')) throw new AppException('TRANSACTION_ALREADY_REVERSED');
      throw error;
    });
}

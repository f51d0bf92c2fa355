import { randomUUID } from 'node:crypto';
import { AppException } from '@mm/errors';
import type { LedgerDb } from '../db/ledger-db.service';
import { toMoney } from '../db/money';
import type { EntryLeg } from '../execution/double-entry';
import { executeCorrectionEntries } from './correction-execution';
import type { CorrectionRow } from './correction-view';
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

/**
 * The approval of a REVERSAL: the inverse of every entry of the original transaction T (same account,
 * same amount, DEBIT ↔ CREDIT, the pairs linked again between the new entries), written by
 * executeCorrectionEntries as a transaction with `reversal_of` = T. Each account the inverse takes
 * money from must hold it (treasury and suspense excepted), or nothing is written and the request
 * stays pending.
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
    await executeCorrectionEntries(
      this.db,
      this.settings,
      this.referencePrefix,
      { before, checker, dto },
      {
        legs,
        fee: target.fee,
        reversalOf: original,
        metadata: (correction, correlationId) => ({
          typeCode: 'REVERSAL',
          correctionId: correction.id,
          reversalOf: original,
          reversalOfReference: target.referenceId,
          makerId: correction.maker_id,
          checkerId: checker.id,
          reason: correction.reason,
          correlationId,
          agentId: null,
        }),
        executed: (ids) => ({ ...ids, reversalOf: original, reversalOfReference: target.referenceId, entries: legs.length }),
      },
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

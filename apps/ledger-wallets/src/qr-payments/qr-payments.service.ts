import { Injectable } from '@nestjs/common';
import { LEDGER_EVENT_TYPES, type QrPaymentsAnswer, TERMINAL_STATUSES, type TransactionCompletedEvent } from '@mm/contracts';
import { LedgerDb } from '../db/ledger-db.service';

/**
 * What the ledger knows of the payments of some QR tokens, for partners' order expiry: which ones an
 * intent paid, and which ones an intent may still pay. An intent "may still pay" while it has not
 * ended and its deadline has not passed: the confirm refuses past `expires_at` by the database's
 * clock once its locks are held (execute_confirm), so past it an intent the sweep has not ended yet
 * pays nothing. Read on the primary: a replica's lag would hide the newest payments, the ones asked about.
 */
@Injectable()
export class QrPaymentsService {
  constructor(private readonly db: LedgerDb) {}

  async outcomes(qrTokens: string[]): Promise<QrPaymentsAnswer> {
    const rows = await this.db.query<{ qr_token: string; paid: boolean; open: boolean }>(
      `SELECT i.qr_token,
              bool_or(i.status = 'SUCCEEDED') AS paid,
              bool_or(NOT (i.status = ANY ($2::text[])) AND i.expires_at > clock_timestamp()) AS open
         FROM ledger.transaction_intents i
        WHERE i.qr_token = ANY ($1::text[]) AND i.qr_token IS NOT NULL
        GROUP BY i.qr_token`,
      [[...new Set(qrTokens)], TERMINAL_STATUSES],
    );
    const paid = rows.filter((r) => r.paid).map((r) => r.qr_token);
    // The published events of those payments, found by the outbox's partial index on the token.
    const payments =
      paid.length === 0
        ? []
        : await this.db.query<{ payload: TransactionCompletedEvent }>(
            `SELECT o.payload FROM ledger.outbox o
              WHERE o.event_type = $2 AND o.payload->>'qrToken' = ANY ($1::text[]) AND o.payload->>'qrToken' IS NOT NULL
              ORDER BY o.created_at`,
            [paid, LEDGER_EVENT_TYPES.transactionCompleted],
          );
    return {
      paid,
      open: rows.filter((r) => !r.paid && r.open).map((r) => r.qr_token),
      payments: payments.map((r) => r.payload),
    };
  }
}

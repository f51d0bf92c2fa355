import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { Currency } from '@mm/contracts';
import { AppException } from '@mm/errors';
import { queryRows } from '@mm/platform';
import { PAYMENTS_SETTINGS, type PaymentsSettings } from '../payment-parties/payments-settings';

/** Withdrawal codes: `wqr_` and 64 hex digits (256 random bits). */
export const WITHDRAWAL_QR = /^wqr_[0-9a-f]{64}$/;

export interface IssuedWithdrawalQr {
  qrToken: string;
  currency: Currency;
  amount: number | null;
  expiresAt: string;
}

export interface LiveWithdrawalQr {
  id: string;
  customerUserId: string;
  currency: Currency;
  amount: number | null;
  /** the end of the code's lifetime: ISO 8601 UTC, to the millisecond (rounded down) */
  expiresAt: string;
}

const hashOf = (token: string) => createHash('sha256').update(token).digest();

/**
 * A customer's consent to one cash-out, shown to the agent as a QR instead of reading out an OTP.
 * It is single use (consumed in the transaction that records the cash-out intent) and short-lived;
 * only its hash is stored, so the table cannot be used to withdraw. The ledger locks the cash-out
 * intent to `wqr:<id>`, never to the secret itself.
 */
@Injectable()
export class WithdrawalQrService {
  constructor(
    private readonly db: DataSource,
    @Inject(PAYMENTS_SETTINGS) private readonly settings: PaymentsSettings,
  ) {}

  async issue(customerUserId: string, currency: Currency, amount?: number): Promise<IssuedWithdrawalQr> {
    const token = `wqr_${randomBytes(32).toString('hex')}`;
    const [row] = await queryRows<{ expires_at: Date }>(
      this.db,
      `INSERT INTO orchestrator.withdrawal_qrs (id, token_hash, customer_user_id, currency, amount, expires_at)
       VALUES ($1, $2, $3, $4, $5, now() + make_interval(secs => $6)) RETURNING expires_at`,
      [randomUUID(), hashOf(token), customerUserId, currency, amount ?? null, this.settings.withdrawalQrTtlSec],
    );
    return { qrToken: token, currency, amount: amount ?? null, expiresAt: new Date(row.expires_at).toISOString() };
  }

  /**
   * A code that can still be used: unknown, used and expired codes all answer the same
   * WITHDRAWAL_QR_INVALID (no oracle on which codes exist). Consumption happens with the intent.
   */
  async resolve(token: string): Promise<LiveWithdrawalQr> {
    if (!WITHDRAWAL_QR.test(token)) throw new AppException('WITHDRAWAL_QR_INVALID');
    const [row] = await queryRows<{ id: string; customer_user_id: string; currency: Currency; amount: string | null; expires_at: string }>(
      this.db,
      // The expiry is formatted here, not parsed into a Date: a microsecond timestamp would have to
      // survive a float product to come out as the same millisecond.
      `SELECT id, customer_user_id, currency, amount,
              to_char(date_trunc('milliseconds', expires_at) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS expires_at
         FROM orchestrator.withdrawal_qrs
        WHERE token_hash = $1 AND consumed_at IS NULL AND expires_at > now()`,
      [hashOf(token)],
    );
    if (!row) throw new AppException('WITHDRAWAL_QR_INVALID');
    return {
      id: row.id,
      customerUserId: row.customer_user_id,
      currency: row.currency,
      amount: row.amount === null ? null : Number(row.amount),
      expiresAt: row.expires_at,
    };
  }
}

import { randomUUID } from 'node:crypto';
import { Injectable, Logger } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import { AppException } from '@mm/errors';
import { type SqlWrite, queryRows, runWrite } from '@mm/platform';
import { ConfigVersionsService } from '../config-api/config-versions.service';
import { OrchestratorConfig } from '../orchestrator.config';
import type { ConfigVersion } from '../config-api/config-sections';
import { bandFor, charge } from './grid-math';
import { toSafeInteger } from '../common/operation-type';
import type { Charge, ChargeRule, Pricing, Quote, QuoteRequest } from './pricing.types';

type Queryable = DataSource | EntityManager;

/** A priced operation not yet stored (`PricingService.price`). */
export interface QuoteDraft {
  id: string;
  request: QuoteRequest;
  pricing: Pricing;
  validitySeconds: number;
}

/** The confirm-time price decided beforehand (`prepareRequote`): stored already, or both outcomes ready for `applyRequote`. */
export type RequoteDraft =
  | { decided: Charge }
  | { quote: Quote; quoted: Pricing; live: [Pricing, ChargeRule]; expired: [Pricing, ChargeRule]; activeGridVersion: number };

interface QuoteRow {
  id: string;
  operation_id: string | null;
  type: Quote['type'];
  currency: Quote['currency'];
  amount: string;
  fee: string;
  commission: string;
  grid_version: number;
  created_at: Date;
  expires_at: Date;
  charged_fee: string | null;
  charged_commission: string | null;
  charged_grid_version: number | null;
  charge_rule: ChargeRule | null;
  requoted_at: Date | null;
}

const QUOTE_COLUMNS = `id, operation_id, type, currency, amount, fee, commission, grid_version, created_at, expires_at,
  charged_fee, charged_commission, charged_grid_version, charge_rule, requoted_at`;

/**
 * Fees and agent commissions from the versioned grids.
 *
 * Order of use by the intent flow: `quote()` at create (the fee frozen with the amount), then
 * `requote()` at confirm (the fee and commission that go into the executionContext).
 *
 * Which fee wins at confirm: the quote is a promise to the payer, who approved it with a PIN, so
 * a grid change while the intent is open never raises the price; a cut applies at once (the
 * payer gets the lower fee). Commission and grid version follow whichever version set the fee,
 * so one payment is always priced by one version. Past its validity the quote no longer binds:
 * the grid in force applies. The decision is stored on the quote the first time, so a confirm
 * retried after a crash sends the ledger the very same numbers (and its idempotency check holds).
 */
@Injectable()
export class PricingService {
  private readonly logger = new Logger(PricingService.name);

  constructor(
    private readonly db: DataSource,
    private readonly config: ConfigVersionsService,
    private readonly appConfig: OrchestratorConfig,
  ) {}

  /** Fee and commission under the grid in force, not stored (the public estimate). */
  async estimate(request: Omit<QuoteRequest, 'operationId'>): Promise<Pricing> {
    return priceWith(await this.config.active('pricing'), request);
  }

  /** Prices the operation with the grid in force (`active`, when the caller already read it) and stores the quote. */
  async quote(request: QuoteRequest, active?: ConfigVersion<'pricing'>): Promise<Quote> {
    return this.storeQuote(await this.price(request, active));
  }

  /** Prices the operation without storing anything; `storeQuote` stores it (in the caller's transaction). */
  async price(request: QuoteRequest, active?: ConfigVersion<'pricing'>): Promise<QuoteDraft> {
    const grid = active ?? (await this.config.active('pricing'));
    const pricing = priceWith(grid, request);
    this.assertCommissionInRange(request.amount, pricing.commission);
    return { id: randomUUID(), request, pricing, validitySeconds: grid.document.quoteValiditySeconds };
  }

  /**
   * Stores a priced draft and answers the quote that stands: the draft's, or the first quote of the
   * same operation (a retried create), which must price the same terms. `db`: the caller's transaction.
   */
  async storeQuote(draft: QuoteDraft, db: Queryable = this.db): Promise<Quote> {
    const { request } = draft;
    const [inserted] = await runWrite<QuoteRow>(db, this.quoteWrite(draft));
    if (inserted) return toQuote(inserted);
    // A retried create: the first quote of this operation stands, if the terms are the same.
    const [existing] = await queryRows<QuoteRow>(db, `SELECT ${QUOTE_COLUMNS} FROM orchestrator.fee_quotes WHERE operation_id = $1`, [
      request.operationId,
    ]);
    const quote = toQuote(existing);
    if (quote.type !== request.type || quote.amount !== request.amount || quote.currency !== request.currency) {
      throw new AppException('IDEMPOTENCY_KEY_CONFLICT', 'This idempotency key was already priced for another operation');
    }
    return quote;
  }

  /**
   * The insert of `storeQuote` as a write to run with others in one statement (see runWritesTogether):
   * answers the quote's row only when this write stored it (a quote of the operation already there
   * is kept). `onlyIf`: a condition without parameters, on earlier writes of that statement (the
   * quote is then stored only when it holds).
   */
  quoteWrite(draft: QuoteDraft, onlyIf = 'true'): SqlWrite {
    const { request, pricing } = draft;
    return {
      text: `INSERT INTO orchestrator.fee_quotes (id, operation_id, type, currency, amount, fee, commission, grid_version, created_at, expires_at)
       SELECT $1, $2, $3, $4, $5, $6, $7, $8, now(), now() + make_interval(secs => $9)
        WHERE ${onlyIf}
       ON CONFLICT (operation_id) DO NOTHING
       RETURNING ${QUOTE_COLUMNS}`,
      params: [
        draft.id,
        request.operationId ?? null,
        request.type,
        request.currency,
        request.amount,
        pricing.fee,
        pricing.commission,
        pricing.gridVersion,
        draft.validitySeconds,
      ],
    };
  }

  /**
   * The ledger refuses at confirm a commission above the amount or above its ceiling per operation.
   * Grids are checked for both when stored, but a quote the ledger would refuse must not even start:
   * the customer would freeze money and type an OTP and a PIN for an operation bound to fail.
   */
  private assertCommissionInRange(amount: number, commission: number): void {
    const ceiling = this.appConfig.COMMISSION_MAX_PER_OPERATION;
    if (commission > amount || commission > ceiling) {
      this.logger.error({ msg: 'commission grid yields a commission out of range', amount, commission, ceiling });
      throw new AppException(
        'COMMISSION_OUT_OF_RANGE',
        commission > amount
          ? `The commission grid in force would pay ${commission} on an amount of ${amount}; the operation cannot be priced`
          : `The commission grid in force would pay ${commission}, above the maximum of ${ceiling} per operation; the operation cannot be priced`,
      );
    }
  }

  async getQuote(quoteId: string): Promise<Quote> {
    const [row] = await queryRows<QuoteRow>(this.db, `SELECT ${QUOTE_COLUMNS} FROM orchestrator.fee_quotes WHERE id = $1`, [quoteId]);
    if (!row) throw new AppException('QUOTE_NOT_FOUND');
    return toQuote(row);
  }

  /**
   * The confirm-time price of a quote (see the class comment for which fee wins). Idempotent: the
   * first call decides and stores; every later call returns the same Charge. `active`: the grid in
   * force as the caller already read it for this request (else read here).
   *
   * Two statements: the quote, then one conditional UPDATE that stores the decision only if none
   * is stored yet (`requoted_at IS NULL`; a concurrent twin waits on the row and then finds it
   * decided, and reads that decision back). Whether the quote has expired is decided by the
   * database's clock inside that UPDATE, so both possible outcomes are computed beforehand.
   */
  async requote(previous: Pick<Quote, 'quoteId' | 'type' | 'amount' | 'currency'>, active?: ConfigVersion<'pricing'>): Promise<Charge> {
    return this.applyRequote(await this.prepareRequote(previous, active));
  }

  /**
   * The reading half of `requote`: the quote, and both possible decisions computed beforehand (or
   * the decision already stored). `applyRequote` stores it, in the caller's transaction if any.
   */
  async prepareRequote(
    previous: Pick<Quote, 'quoteId' | 'type' | 'amount' | 'currency'>,
    active?: ConfigVersion<'pricing'>,
  ): Promise<RequoteDraft> {
    const [row] = await queryRows<QuoteRow>(this.db, `SELECT ${QUOTE_COLUMNS} FROM orchestrator.fee_quotes WHERE id = $1`, [
      previous.quoteId,
    ]);
    if (!row) throw new AppException('QUOTE_NOT_FOUND');
    const quote = toQuote(row);
    if (quote.type !== previous.type || quote.amount !== previous.amount || quote.currency !== previous.currency) {
      // The caller paired a quote with another operation: a bug, never a client mistake.
      throw new Error(`quote ${quote.quoteId} does not price this operation`);
    }
    if (row.requoted_at) return { decided: toCharge(row) };

    const quotedGrid = await this.config.get('pricing', quote.gridVersion);
    const grid = active ?? (await this.config.active('pricing'));
    // Recompute the quote under its own (immutable) version: the stored numbers must be reproducible.
    const recomputed = priceWith(quotedGrid, quote);
    if (recomputed.fee !== quote.fee || recomputed.commission !== quote.commission) {
      this.logger.error({ msg: 'stored quote does not match its grid version', quoteId: quote.quoteId, gridVersion: quote.gridVersion });
      throw new AppException('INTERNAL_ERROR', 'The quote could not be verified');
    }
    const quoted: Pricing = { fee: quote.fee, commission: quote.commission, gridVersion: quote.gridVersion };
    let live: [Pricing, ChargeRule] = [quoted, 'QUOTE_HONOURED'];
    let expired: [Pricing, ChargeRule] = [quoted, 'QUOTE_HONOURED'];
    if (grid.version !== quote.gridVersion) {
      const current = priceWith(grid, quote);
      expired = [current, 'QUOTE_EXPIRED'];
      if (current.fee < quote.fee) live = [current, 'ACTIVE_GRID_LOWER'];
    }
    return { quote, quoted, live, expired, activeGridVersion: grid.version };
  }

  /** Stores the decision `prepareRequote` computed, unless one is stored already; answers the one that stands. */
  async applyRequote(draft: RequoteDraft, db: Queryable = this.db): Promise<Charge> {
    if ('decided' in draft) return draft.decided;
    const { quote, quoted, live, expired } = draft;
    const [updated] = await queryRows<QuoteRow>(
      db,
      `UPDATE orchestrator.fee_quotes
          SET charged_fee = CASE WHEN now() > expires_at THEN $2::bigint ELSE $6::bigint END,
              charged_commission = CASE WHEN now() > expires_at THEN $3::bigint ELSE $7::bigint END,
              charged_grid_version = CASE WHEN now() > expires_at THEN $4::int ELSE $8::int END,
              charge_rule = CASE WHEN now() > expires_at THEN $5::text ELSE $9::text END,
              requoted_at = now()
        WHERE id = $1 AND requoted_at IS NULL
        RETURNING ${QUOTE_COLUMNS}`,
      [
        quote.quoteId,
        expired[0].fee,
        expired[0].commission,
        expired[0].gridVersion,
        expired[1],
        live[0].fee,
        live[0].commission,
        live[0].gridVersion,
        live[1],
      ],
    );
    if (!updated) {
      // A concurrent confirm of the same operation decided first: its decision stands.
      const [decided] = await queryRows<QuoteRow>(db, `SELECT ${QUOTE_COLUMNS} FROM orchestrator.fee_quotes WHERE id = $1`, [
        quote.quoteId,
      ]);
      return toCharge(decided);
    }
    const charge = toCharge(updated);
    if (draft.activeGridVersion !== quote.gridVersion) {
      this.logger.log({
        msg: 'fee decided at confirm under a changed grid',
        quoteId: quote.quoteId,
        rule: charge.rule,
        activeGridVersion: draft.activeGridVersion,
        quoted,
        charged: { fee: charge.fee, commission: charge.commission, gridVersion: charge.gridVersion },
      });
    }
    return charge;
  }
}

/** Fee (rounded up) and commission (rounded down) of an operation under one pricing version. */
export function priceWith(grid: ConfigVersion<'pricing'>, op: Pick<QuoteRequest, 'type' | 'amount' | 'currency'>): Pricing {
  const feeGrid = grid.document.fees.find((g) => g.type === op.type && g.currency === op.currency);
  const feeBand = feeGrid && bandFor(feeGrid.bands, op.amount);
  if (!feeBand) throw new AppException('PRICING_UNAVAILABLE', `No ${op.type} fee grid for ${op.currency}`);
  const commissionGrid = grid.document.commissions.find((g) => g.type === op.type && g.currency === op.currency);
  const commissionBand = commissionGrid && bandFor(commissionGrid.bands, op.amount);
  return {
    fee: charge(feeBand, op.amount, 'ceil'),
    commission: commissionBand ? charge(commissionBand, op.amount, 'floor') : 0,
    gridVersion: grid.version,
  };
}

function toQuote(row: QuoteRow): Quote {
  return {
    quoteId: row.id,
    operationId: row.operation_id,
    type: row.type,
    amount: toSafeInteger(row.amount),
    currency: row.currency,
    fee: toSafeInteger(row.fee),
    commission: toSafeInteger(row.commission),
    gridVersion: Number(row.grid_version),
    createdAt: new Date(row.created_at).toISOString(),
    expiresAt: new Date(row.expires_at).toISOString(),
  };
}

function toCharge(row: QuoteRow): Charge {
  if (
    !row.requoted_at ||
    row.charged_fee === null ||
    row.charged_commission === null ||
    row.charged_grid_version === null ||
    !row.charge_rule
  ) {
    throw new Error(`quote ${row.id} has no charge yet`);
  }
  return {
    quoteId: row.id,
    fee: toSafeInteger(row.charged_fee),
    commission: toSafeInteger(row.charged_commission),
    gridVersion: Number(row.charged_grid_version),
    rule: row.charge_rule,
    quoted: { fee: toSafeInteger(row.fee), commission: toSafeInteger(row.commission), gridVersion: Number(row.grid_version) },
    decidedAt: new Date(row.requoted_at).toISOString(),
  };
}

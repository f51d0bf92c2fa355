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

/** The confirm-time price decided beforehand (`prepareRequote`): both outcomes ready for `applyRequote`. */
export interface RequoteDraft {
  quoteId: string;
  /** the terms the caller holds for this quote: the UPDATE touches the quote only if they are its own */
  terms: Pick<Quote, 'type' | 'amount' | 'currency'>;
  quoted: Pricing;
  /** the decision while the quote binds, and once it has expired (the database's clock tells which) */
  live: [Pricing, ChargeRule];
  expired: [Pricing, ChargeRule];
  activeGridVersion: number;
}

/** A stored quote's id, terms and numbers, as the intent record keeps them. */
export type QuotedTerms = Pick<Quote, 'quoteId' | 'type' | 'amount' | 'currency' | 'fee' | 'commission' | 'gridVersion'>;

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
 * Order of use by the intent flow: a quote at create (`price`, stored with the record: the fee
 * frozen with the amount), then at confirm the fee decision (`prepareRequote` from the record's
 * terms, stored by `requoteWrite` / `applyRequote`: the fee and commission that go into the
 * executionContext); `requote` reads a stored quote first (a retry, the reconciler).
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
   * The quote is read here (its terms, and a decision already stored); a caller that holds the
   * quote's terms already (the intent record does) uses `prepareRequote` and `applyRequote`, which
   * read nothing before the UPDATE.
   */
  async requote(
    previous: Pick<Quote, 'quoteId' | 'type' | 'amount' | 'currency'>,
    active?: ConfigVersion<'pricing'>,
    db: Queryable = this.db,
  ): Promise<Charge> {
    const [row] = await queryRows<QuoteRow>(db, `SELECT ${QUOTE_COLUMNS} FROM orchestrator.fee_quotes WHERE id = $1`, [previous.quoteId]);
    if (!row) throw new AppException('QUOTE_NOT_FOUND');
    const quote = toQuote(row);
    assertPrices(quote, previous);
    if (row.requoted_at) return toCharge(row);
    return this.applyRequote(await this.prepareRequote(quote, active), db);
  }

  /**
   * The deciding half of `requote`, reading nothing: both possible decisions computed from the
   * quote's terms as the caller holds them (the intent record keeps the quote's id, terms and
   * numbers). `applyRequote` stores the one that applies, or finds the one stored already.
   */
  async prepareRequote(quote: QuotedTerms, active?: ConfigVersion<'pricing'>): Promise<RequoteDraft> {
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
    const terms = { type: quote.type, amount: quote.amount, currency: quote.currency };
    return { quoteId: quote.quoteId, terms, quoted, live, expired, activeGridVersion: grid.version };
  }

  /**
   * The charge a draft will store whenever it is stored: the quote's own numbers when the grid in
   * force is the one it was given under (then its validity changes nothing). Undefined when the
   * outcome depends on the database's clock (the grid changed): only `applyRequote` tells then.
   */
  chargeWhateverTheTime(draft: RequoteDraft, decidedAt: Date): Charge | undefined {
    const [live, liveRule] = draft.live;
    const [expired, expiredRule] = draft.expired;
    const same = live.fee === expired.fee && live.commission === expired.commission && live.gridVersion === expired.gridVersion;
    if (!same || liveRule !== expiredRule) return undefined;
    return { quoteId: draft.quoteId, ...live, rule: liveRule, quoted: draft.quoted, decidedAt: decidedAt.toISOString() };
  }

  /**
   * The UPDATE of `applyRequote` as a write to run with others in one statement (see
   * runWritesTogether): it stores the decision only if none is stored yet and answers the quote's
   * row only then. Whether the quote expired is decided by the database's clock, so both outcomes
   * travel. `onlyIf`: a condition without parameters on earlier writes of that statement.
   */
  requoteWrite(draft: RequoteDraft, onlyIf = 'true'): SqlWrite {
    const { live, expired } = draft;
    return {
      text: `UPDATE orchestrator.fee_quotes
          SET charged_fee = CASE WHEN now() > expires_at THEN $2::bigint ELSE $6::bigint END,
              charged_commission = CASE WHEN now() > expires_at THEN $3::bigint ELSE $7::bigint END,
              charged_grid_version = CASE WHEN now() > expires_at THEN $4::int ELSE $8::int END,
              charge_rule = CASE WHEN now() > expires_at THEN $5::text ELSE $9::text END,
              requoted_at = now()
        WHERE id = $1 AND requoted_at IS NULL
          AND type = $10 AND amount = $11 AND currency = $12 AND fee = $13 AND commission = $14 AND grid_version = $15
          AND ${onlyIf}
        RETURNING ${QUOTE_COLUMNS}`,
      params: [
        draft.quoteId,
        expired[0].fee,
        expired[0].commission,
        expired[0].gridVersion,
        expired[1],
        live[0].fee,
        live[0].commission,
        live[0].gridVersion,
        live[1],
        draft.terms.type,
        draft.terms.amount,
        draft.terms.currency,
        draft.quoted.fee,
        draft.quoted.commission,
        draft.quoted.gridVersion,
      ],
    };
  }

  /**
   * Stores the decision `prepareRequote` computed, unless one is stored already (a concurrent twin
   * waits on the row and then finds it decided): answers the one that stands.
   */
  async applyRequote(draft: RequoteDraft, db: Queryable = this.db): Promise<Charge> {
    const [updated] = await runWrite<QuoteRow>(db, this.requoteWrite(draft));
    if (!updated) {
      // Decided before (a retried confirm) or by a concurrent confirm of the same operation: that decision stands.
      const [decided] = await queryRows<QuoteRow>(db, `SELECT ${QUOTE_COLUMNS} FROM orchestrator.fee_quotes WHERE id = $1`, [
        draft.quoteId,
      ]);
      if (!decided) throw new AppException('QUOTE_NOT_FOUND');
      assertPrices(toQuote(decided), { ...draft.terms, quoteId: draft.quoteId }, draft.quoted);
      return toCharge(decided);
    }
    const charge = toCharge(updated);
    if (draft.activeGridVersion !== draft.quoted.gridVersion) {
      this.logger.log({
        msg: 'fee decided at confirm under a changed grid',
        quoteId: draft.quoteId,
        rule: charge.rule,
        activeGridVersion: draft.activeGridVersion,
        quoted: draft.quoted,
        charged: { fee: charge.fee, commission: charge.commission, gridVersion: charge.gridVersion },
      });
    }
    return charge;
  }
}

/**
 * A stored quote paired by the caller with its operation's terms (and, when given, the numbers the
 * caller holds for it): anything else is a bug of the caller, never a client mistake.
 */
function assertPrices(stored: Quote, terms: Pick<Quote, 'quoteId' | 'type' | 'amount' | 'currency'>, numbers?: Pricing): void {
  const sameTerms = stored.type === terms.type && stored.amount === terms.amount && stored.currency === terms.currency;
  const sameNumbers =
    !numbers || (stored.fee === numbers.fee && stored.commission === numbers.commission && stored.gridVersion === numbers.gridVersion);
  if (!sameTerms || !sameNumbers) throw new Error(`quote ${terms.quoteId} does not price this operation`);
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

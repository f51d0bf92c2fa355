import { Injectable } from '@nestjs/common';
import {
  type LedgerAccountStatement,
  PAID_ORDER_LOOKUP_MAX,
  type PaidOrders,
  type PaidOrdersAnswer,
  SETTLEMENT_STATEMENT_ROUTES,
} from '@mm/contracts';
import { AppException } from '@mm/errors';
import { InternalHttpClient } from '@mm/platform';
import { ledgerHttpClient } from '../ledger-client/ledger-http';
import { ledgerClientSettings } from '../ledger-client/ledger.client';
import { type RetryPolicy, withRetries } from '../ledger-client/ledger-retry';
import { OrchestratorConfig } from '../orchestrator.config';

/** The paid orders of a statement's QR payments, and whether partners has applied all of them. */
export interface StatementOrders {
  orders: PaidOrders;
  complete: boolean;
}

/**
 * Answers after which nothing of the ledger's statement read ran: the connection was refused, or the
 * ledger refused it before reading (all statement connections busy). A timeout is not one of them:
 * the read may still be running, and sending it again would only add a second long read.
 */
const STATEMENT_RETRYABLE = new Set(['UPSTREAM_UNAVAILABLE', 'SERVICE_UNAVAILABLE']);

/**
 * Where a settlement statement's facts live: the account's entries and balances at the ledger, the
 * partner orders the payments paid at partners. The paid-order lookup is a short read, retried like
 * the money path's reads; the ledger's statement is a long one, tried again only when it never started.
 */
@Injectable()
export class StatementSourcesClient {
  private readonly ledger: InternalHttpClient;
  private readonly partners: InternalHttpClient;
  private readonly retry: RetryPolicy;

  constructor(config: OrchestratorConfig) {
    const settings = ledgerClientSettings(config);
    this.retry = settings.retry;
    // a month of a busy merchant is thousands of entries: the compliance reads' budget, not a payment's
    this.ledger = ledgerHttpClient(config, Math.max(settings.timeoutMs, config.UPSTREAM_TIMEOUT_MS));
    this.partners = new InternalHttpClient({
      name: 'partners',
      baseUrl: config.PARTNERS_URL,
      serviceKey: config.INTERNAL_SERVICE_KEY,
      timeoutMs: config.UPSTREAM_TIMEOUT_MS,
    });
  }

  async account(accountId: string, from: string, to: string): Promise<LedgerAccountStatement> {
    const path = `${SETTLEMENT_STATEMENT_ROUTES.ledgerAccount(accountId)}?${new URLSearchParams({ from, to }).toString()}`;
    let delay = this.retry.baseDelayMs;
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.ledger.get<LedgerAccountStatement>(path);
      } catch (error) {
        const again = error instanceof AppException && STATEMENT_RETRYABLE.has(error.code) && attempt < this.retry.attempts;
        if (!again) throw error;
        await new Promise((resolve) => setTimeout(resolve, delay));
        delay *= 2;
      }
    }
  }

  /** The orders these transactions paid, asked in batches of PAID_ORDER_LOOKUP_MAX. */
  async paidOrders(transactionIds: string[]): Promise<StatementOrders> {
    const orders = new Map<string, { orderId: string; externalReference: string | null }>();
    let complete = true;
    for (let i = 0; i < transactionIds.length; i += PAID_ORDER_LOOKUP_MAX) {
      const batch = transactionIds.slice(i, i + PAID_ORDER_LOOKUP_MAX);
      const answer = await withRetries(this.retry, () =>
        this.partners.post<PaidOrdersAnswer>(SETTLEMENT_STATEMENT_ROUTES.partnersPaidOrders, { transactionIds: batch }),
      );
      for (const r of answer.orders) orders.set(r.transactionId, { orderId: r.orderId, externalReference: r.externalReference });
      if (answer.unapplied.length > 0) complete = false;
    }
    return { orders, complete };
  }
}

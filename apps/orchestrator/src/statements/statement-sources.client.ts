import { Injectable } from '@nestjs/common';
import {
  type LedgerAccountStatement,
  PAID_ORDER_LOOKUP_MAX,
  type PaidOrderRef,
  type PaidOrders,
  SETTLEMENT_STATEMENT_ROUTES,
} from '@mm/contracts';
import { InternalHttpClient } from '@mm/platform';
import { ledgerClientSettings } from '../ledger-client/ledger.client';
import { type RetryPolicy, withRetries } from '../ledger-client/ledger-retry';
import { OrchestratorConfig } from '../orchestrator.config';

/**
 * Where a settlement statement's facts live: the account's entries and balances at the ledger, the
 * partner orders the payments paid at partners. Both are reads, retried like the money path's reads.
 */
@Injectable()
export class StatementSourcesClient {
  private readonly ledger: InternalHttpClient;
  private readonly partners: InternalHttpClient;
  private readonly retry: RetryPolicy;

  constructor(config: OrchestratorConfig) {
    const settings = ledgerClientSettings(config);
    this.retry = settings.retry;
    this.ledger = new InternalHttpClient({
      name: 'ledger-wallets',
      baseUrl: config.LEDGER_URL,
      serviceKey: config.INTERNAL_SERVICE_KEY,
      // a month of a busy merchant is thousands of entries: the compliance reads' budget, not a payment's
      timeoutMs: Math.max(settings.timeoutMs, config.UPSTREAM_TIMEOUT_MS),
    });
    this.partners = new InternalHttpClient({
      name: 'partners',
      baseUrl: config.PARTNERS_URL,
      serviceKey: config.INTERNAL_SERVICE_KEY,
      timeoutMs: config.UPSTREAM_TIMEOUT_MS,
    });
  }

  account(accountId: string, from: string, to: string): Promise<LedgerAccountStatement> {
    const q = new URLSearchParams({ from, to });
    return withRetries(this.retry, () =>
      this.ledger.get<LedgerAccountStatement>(`${SETTLEMENT_STATEMENT_ROUTES.ledgerAccount(accountId)}?${q.toString()}`),
    );
  }

  /** The orders these transactions paid, asked in batches of PAID_ORDER_LOOKUP_MAX. */
  async paidOrders(transactionIds: string[]): Promise<PaidOrders> {
    const found = new Map<string, { orderId: string; externalReference: string | null }>();
    for (let i = 0; i < transactionIds.length; i += PAID_ORDER_LOOKUP_MAX) {
      const batch = transactionIds.slice(i, i + PAID_ORDER_LOOKUP_MAX);
      const refs = await withRetries(this.retry, () =>
        this.partners.post<PaidOrderRef[]>(SETTLEMENT_STATEMENT_ROUTES.partnersPaidOrders, { transactionIds: batch }),
      );
      for (const r of refs) found.set(r.transactionId, { orderId: r.orderId, externalReference: r.externalReference });
    }
    return found;
  }
}

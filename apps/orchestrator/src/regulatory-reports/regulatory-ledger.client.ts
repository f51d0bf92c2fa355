import { Injectable } from '@nestjs/common';
import { type Currency, type RegulatoryOperationPageView, type RegulatoryOperationView } from '@mm/contracts';
import { InternalHttpClient } from '@mm/platform';
import { ledgerHttpClient } from '../ledger-client/ledger-http';
import { ledgerClientSettings } from '../ledger-client/ledger.client';
import { type RetryPolicy, withRetries } from '../ledger-client/ledger-retry';
import { OrchestratorConfig } from '../orchestrator.config';

const PAGE = 1000;

/**
 * The ledger's regulatory read (`GET /v1/internal/regulatory/operations`) with the orchestrator's
 * service key only: the daily job runs with nobody signed in, and officers are authorised here.
 * A read, so retried like the money path's reads, each page with COMPLIANCE_LEDGER_TIMEOUT_MS.
 */
@Injectable()
export class RegulatoryLedgerClient {
  private readonly http: InternalHttpClient;
  private readonly retry: RetryPolicy;
  private readonly timeoutMs: number;

  constructor(config: OrchestratorConfig) {
    const settings = ledgerClientSettings(config);
    this.retry = settings.retry;
    this.timeoutMs = config.COMPLIANCE_LEDGER_TIMEOUT_MS;
    this.http = ledgerHttpClient(config, settings.timeoutMs);
  }

  /** Every operation of `currency` completed in [from, to) at or above `minAmount`, oldest first, all pages. */
  async operations(currency: Currency, minAmount: number, from: string, to: string): Promise<RegulatoryOperationView[]> {
    const out: RegulatoryOperationView[] = [];
    let cursor: string | null = null;
    do {
      const query = new URLSearchParams({ currency, minAmount: String(minAmount), from, to, limit: String(PAGE) });
      if (cursor) query.set('cursor', cursor);
      const page: RegulatoryOperationPageView = await withRetries(this.retry, () =>
        this.http.get<RegulatoryOperationPageView>(`/v1/internal/regulatory/operations?${query.toString()}`, { timeoutMs: this.timeoutMs }),
      );
      out.push(...page.items);
      cursor = page.nextCursor;
    } while (cursor);
    return out;
  }
}

import { Injectable } from '@nestjs/common';
import type { LedgerAdjustment, LedgerReversalLink } from '@mm/contracts';
import { InternalHttpClient } from '@mm/platform';
import { ledgerClientSettings } from '../ledger-client/ledger.client';
import { type RetryPolicy, withRetries } from '../ledger-client/ledger-retry';
import { OrchestratorConfig } from '../orchestrator.config';

// The answers' shapes are the ledger's own (libs/contracts/src/statements.ts); re-exported for the history's modules.
export type { LedgerAdjustment, LedgerReversalLink };

export interface AdjustmentsFilter {
  /** keyset: strictly before (completedAt, id) */
  before?: [string, string];
  from?: string;
  to?: string;
  referenceId?: string;
  limit: number;
}

/**
 * The ledger's reads behind a holder's history: adjustments on its accounts (reversals and
 * corrections, which the orchestrator's payment records never see) and which payments were
 * reversed. Reads, so retried like the money path's reads.
 */
@Injectable()
export class LedgerStatementsClient {
  private readonly http: InternalHttpClient;
  private readonly retry: RetryPolicy;

  constructor(config: OrchestratorConfig) {
    const settings = ledgerClientSettings(config);
    this.retry = settings.retry;
    this.http = new InternalHttpClient({
      name: 'ledger-wallets',
      baseUrl: config.LEDGER_URL,
      serviceKey: config.INTERNAL_SERVICE_KEY,
      timeoutMs: settings.timeoutMs,
    });
  }

  adjustments(accountIds: string[], filter: AdjustmentsFilter): Promise<LedgerAdjustment[]> {
    const q = new URLSearchParams({ accountIds: accountIds.join(','), limit: String(filter.limit) });
    if (filter.before) {
      q.set('before', filter.before[0]);
      q.set('beforeId', filter.before[1]);
    }
    if (filter.from) q.set('from', filter.from);
    if (filter.to) q.set('to', filter.to);
    if (filter.referenceId) q.set('referenceId', filter.referenceId);
    return withRetries(this.retry, () => this.http.get<LedgerAdjustment[]>(`/v1/internal/adjustments?${q.toString()}`));
  }

  async reversals(transactionIds: string[]): Promise<LedgerReversalLink[]> {
    if (transactionIds.length === 0) return [];
    const q = new URLSearchParams({ transactionIds: transactionIds.join(',') });
    return withRetries(this.retry, () => this.http.get<LedgerReversalLink[]>(`/v1/internal/reversals?${q.toString()}`));
  }
}

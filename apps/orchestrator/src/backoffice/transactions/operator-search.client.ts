import { Injectable } from '@nestjs/common';
import {
  LEDGER_OPERATOR_SEARCH_ROUTES as R,
  type LedgerOperationPage,
  type LedgerOperationSearch,
  type LedgerOperationStory,
} from '@mm/contracts';
import { InternalHttpClient } from '@mm/platform';
import { ledgerClientSettings } from '../../ledger-client/ledger.client';
import { type RetryPolicy, withRetries } from '../../ledger-client/ledger-retry';
import { OrchestratorConfig } from '../../orchestrator.config';

/** The ledger's operator-search routes (libs/contracts operator-search.ts): reads, so retried like the money path's reads. */
@Injectable()
export class OperatorSearchClient {
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

  search(filters: LedgerOperationSearch): Promise<LedgerOperationPage> {
    const q = new URLSearchParams();
    for (const [key, value] of Object.entries(filters)) {
      if (value === undefined) continue;
      q.set(key, Array.isArray(value) ? value.join(',') : String(value));
    }
    return withRetries(this.retry, () => this.http.get<LedgerOperationPage>(`${R.operations}?${q.toString()}`));
  }

  /** One operation by reference or intent id; 404 TRANSACTION_NOT_FOUND. */
  story(key: string): Promise<LedgerOperationStory> {
    return withRetries(this.retry, () => this.http.get<LedgerOperationStory>(R.story(key)));
  }
}

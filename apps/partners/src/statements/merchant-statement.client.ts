import { Injectable } from '@nestjs/common';
import { type Currency, type LedgerAccountStatement, SETTLEMENT_STATEMENT_ROUTES } from '@mm/contracts';
import { InternalHttpClient } from '@mm/platform';
import { PartnersConfig } from '../partners.config';

/**
 * How long partners waits for the ledger part: above the ledger's own limit on the read
 * (LEDGER_STATEMENT_TIMEOUT_MS, 8 s) and the orchestrator's wait for it (10 s), so that a slow read
 * ends in the ledger's clear SETTLEMENT_STATEMENT_TIMEOUT rather than a timeout here.
 */
const STATEMENT_WAIT_MS = 12_000;

/**
 * The ledger's statement of a merchant's account, through the orchestrator's internal listener
 * (which knows the merchant's accounts and alone calls the ledger). Partners adds its own orders.
 */
@Injectable()
export class MerchantStatementClient {
  private readonly http: InternalHttpClient;

  constructor(config: PartnersConfig) {
    this.http = new InternalHttpClient({
      name: 'merchant statements',
      baseUrl: config.ORCHESTRATOR_URL,
      serviceKey: config.INTERNAL_SERVICE_KEY,
      timeoutMs: Math.max(config.PARTNERS_UPSTREAM_TIMEOUT_MS, STATEMENT_WAIT_MS),
    });
  }

  account(merchantId: string, currency: Currency, from: string, to: string): Promise<LedgerAccountStatement> {
    const query = new URLSearchParams({ from, to, currency });
    return this.http.get<LedgerAccountStatement>(`${SETTLEMENT_STATEMENT_ROUTES.orchestratorMerchant(merchantId)}?${query.toString()}`);
  }
}

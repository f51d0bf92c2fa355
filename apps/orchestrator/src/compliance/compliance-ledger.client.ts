import { Injectable, Logger } from '@nestjs/common';
import type {
  AccountAuditReportView,
  IntegrityCheckRecordView,
  IntegrityCheckResultView,
  LedgerChainAnchorView,
  LedgerChainVerificationRecordView,
  LedgerChainVerificationView,
} from '@mm/contracts';
import { AppException } from '@mm/errors';
import { InternalHttpClient } from '@mm/platform';
import { ledgerHttpClient } from '../ledger-client/ledger-http';
import { ledgerClientSettings } from '../ledger-client/ledger.client';
import { type RetryPolicy, withRetries } from '../ledger-client/ledger-retry';
import { ONCE, bearer, relayOperatorTokenFaults } from '../ledger-client/operator-token';
import { OrchestratorConfig } from '../orchestrator.config';

/**
 * The ledger's audit and integrity-check routes, called with the orchestrator's service key AND
 * the compliance officer's own access token: the ledger verifies the token again and records the
 * officer (not the orchestrator) as the one who asked.
 *
 * An audit and a check are each tried ONCE, with COMPLIANCE_LEDGER_TIMEOUT_MS (not the money path's
 * LEDGER_TIMEOUT_MS and its retries): both scan a large part of the ledger (an audit of fee_collection
 * or treasury reads most entries), each run is journalled by the ledger (ledger.account_audits,
 * balance_integrity_checks), and the ledger carries on when the caller stops waiting. Retried on a
 * short timeout, one officer request ran up to three full audits and still answered 504. The list
 * of past checks is a cheap read and keeps the money path's retries.
 */
@Injectable()
export class ComplianceLedgerClient {
  private readonly logger = new Logger(ComplianceLedgerClient.name);
  private readonly http: InternalHttpClient;
  private readonly retry: RetryPolicy;
  private readonly longTimeoutMs: number;

  constructor(config: OrchestratorConfig) {
    const settings = ledgerClientSettings(config);
    this.retry = settings.retry;
    this.longTimeoutMs = config.COMPLIANCE_LEDGER_TIMEOUT_MS;
    this.http = ledgerHttpClient(config, settings.timeoutMs);
  }

  audit(accountId: string, accessToken: string): Promise<AccountAuditReportView> {
    return this.relay(() =>
      withRetries(ONCE, () =>
        this.http.get<AccountAuditReportView>(`/v1/internal/accounts/${accountId}/audit`, {
          ...bearer(accessToken),
          timeoutMs: this.longTimeoutMs,
        }),
      ),
    );
  }

  runIntegrityCheck(accessToken: string): Promise<IntegrityCheckResultView> {
    return this.relay(() =>
      withRetries(ONCE, () =>
        this.http.post<IntegrityCheckResultView>('/v1/internal/integrity-checks', undefined, {
          ...bearer(accessToken),
          timeoutMs: this.longTimeoutMs,
        }),
      ),
    );
  }

  integrityChecks(limit: number, accessToken: string): Promise<IntegrityCheckRecordView[]> {
    return this.relay(() =>
      withRetries(this.retry, () =>
        this.http.get<IntegrityCheckRecordView[]>(`/v1/internal/integrity-checks?limit=${limit}`, bearer(accessToken)),
      ),
    );
  }

  /** A chain verification walks every entry: tried once, with the long timeout, like an integrity check. */
  verifyLedgerChain(accessToken: string): Promise<LedgerChainVerificationView> {
    return this.relay(() =>
      withRetries(ONCE, () =>
        this.http.post<LedgerChainVerificationView>('/v1/internal/ledger-chain/verifications', undefined, {
          ...bearer(accessToken),
          timeoutMs: this.longTimeoutMs,
        }),
      ),
    );
  }

  ledgerChainVerifications(limit: number, accessToken: string): Promise<LedgerChainVerificationRecordView[]> {
    return this.relay(() =>
      withRetries(this.retry, () =>
        this.http.get<LedgerChainVerificationRecordView[]>(`/v1/internal/ledger-chain/verifications?limit=${limit}`, bearer(accessToken)),
      ),
    );
  }

  /**
   * The ledger chain's anchor `n`, or its newest (`latest`), for the witness: service key only, a
   * cheap read with the money path's retries. Null when the ledger has no such anchor.
   */
  async chainAnchor(n: number | 'latest'): Promise<LedgerChainAnchorView | null> {
    try {
      return await withRetries(this.retry, () => this.http.get<LedgerChainAnchorView>(`/v1/internal/ledger-chain/anchors/${n}`));
    } catch (error) {
      if (error instanceof AppException && error.code === 'LEDGER_CHAIN_ANCHOR_NOT_FOUND') return null;
      throw error;
    }
  }

  /** The token faults of the ledger are the platform's: see relayOperatorTokenFaults. */
  private relay<T>(call: () => Promise<T>): Promise<T> {
    return relayOperatorTokenFaults(this.logger, call);
  }
}

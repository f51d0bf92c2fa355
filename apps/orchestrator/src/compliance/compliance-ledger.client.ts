import { Injectable, Logger } from '@nestjs/common';
import { AppException } from '@mm/errors';
import { InternalHttpClient } from '@mm/platform';
import { ledgerClientSettings } from '../ledger-client/ledger.client';
import { type RetryPolicy, withRetries } from '../ledger-client/ledger-retry';
import { OrchestratorConfig } from '../orchestrator.config';
import type { AccountAuditReportView } from './dto/account-audit.views';
import type { IntegrityCheckRecordView, IntegrityCheckResultView } from './dto/integrity-check.views';

/**
 * A check reads every account in one snapshot and may alert the compliance channel (three tries)
 * before it answers: it gets far more time than the money path's ledger calls.
 */
export const INTEGRITY_CHECK_TIMEOUT_MS = 120_000;

/**
 * The ledger's audit and integrity-check routes, called with the orchestrator's service key AND
 * the compliance officer's own access token: the ledger verifies the token again and records the
 * officer (not the orchestrator) as the one who asked. Reads are retried like the money path's
 * reads; a check is run once (a second run would be a second record).
 */
@Injectable()
export class ComplianceLedgerClient {
  private readonly logger = new Logger(ComplianceLedgerClient.name);
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

  audit(accountId: string, accessToken: string): Promise<AccountAuditReportView> {
    return this.relay(() =>
      withRetries(this.retry, () => this.http.get<AccountAuditReportView>(`/v1/internal/accounts/${accountId}/audit`, as(accessToken))),
    );
  }

  runIntegrityCheck(accessToken: string): Promise<IntegrityCheckResultView> {
    // one try, but the same mapping of the ledger's own 500 as the reads (502 UPSTREAM_UNAVAILABLE)
    return this.relay(() =>
      withRetries({ attempts: 1, baseDelayMs: 0 }, () =>
        this.http.post<IntegrityCheckResultView>('/v1/internal/integrity-checks', undefined, {
          ...as(accessToken),
          timeoutMs: INTEGRITY_CHECK_TIMEOUT_MS,
        }),
      ),
    );
  }

  integrityChecks(limit: number, accessToken: string): Promise<IntegrityCheckRecordView[]> {
    return this.relay(() =>
      withRetries(this.retry, () =>
        this.http.get<IntegrityCheckRecordView[]>(`/v1/internal/integrity-checks?limit=${limit}`, as(accessToken)),
      ),
    );
  }

  /**
   * The caller's token already passed the access guard here. Should the ledger still refuse it as
   * missing or invalid, the two services disagree (auth's keys, issuer or audience): that is the
   * platform's fault, not the caller's, so it answers 502 UPSTREAM_UNAVAILABLE and is logged. An
   * expired token (it lapsed in between) and the ledger's role refusal are relayed as they are.
   */
  private async relay<T>(call: () => Promise<T>): Promise<T> {
    try {
      return await call();
    } catch (error) {
      if (error instanceof AppException && (error.code === 'TOKEN_INVALID' || error.code === 'OPERATOR_TOKEN_REQUIRED')) {
        this.logger.error(
          { code: error.code },
          "the ledger refused an access token the orchestrator accepted: check the ledger's auth settings",
        );
        throw new AppException('UPSTREAM_UNAVAILABLE', 'The ledger could not verify the access token');
      }
      throw error;
    }
  }
}

const as = (accessToken: string) => ({ headers: { authorization: `Bearer ${accessToken}` } });

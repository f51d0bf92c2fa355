import { Injectable, Logger } from '@nestjs/common';
import type {
  AcknowledgeReconciliationAlertDto,
  BankStatementView,
  ImportBankStatementDto,
  ReconciliationAlertView,
  ReconciliationReportView,
  ReconciliationRunView,
  ResolveReconciliationAlertDto,
} from '@mm/contracts';
import { InternalHttpClient } from '@mm/platform';
import { ledgerHttpClient } from '../ledger-client/ledger-http';
import { ledgerClientSettings } from '../ledger-client/ledger.client';
import { type RetryPolicy, withRetries } from '../ledger-client/ledger-retry';
import { ONCE, bearer, relayOperatorTokenFaults } from '../ledger-client/operator-token';
import { OrchestratorConfig } from '../orchestrator.config';

/**
 * The ledger's reconciliation routes, called with the orchestrator's service key AND the officer's
 * own access token (as ComplianceLedgerClient does for audits): the ledger verifies the token again
 * and records the officer on every statement, run and decision. Writes are tried once (an import or
 * a run repeated on a slow answer would be refused as a duplicate, or record a second run); a run
 * reads a day of the ledger, so it gets COMPLIANCE_LEDGER_TIMEOUT_MS. Reads keep the money path's retries.
 */
@Injectable()
export class ReconciliationLedgerClient {
  private readonly logger = new Logger(ReconciliationLedgerClient.name);
  private readonly http: InternalHttpClient;
  private readonly retry: RetryPolicy;
  private readonly longTimeoutMs: number;

  constructor(config: OrchestratorConfig) {
    const settings = ledgerClientSettings(config);
    this.retry = settings.retry;
    this.longTimeoutMs = config.COMPLIANCE_LEDGER_TIMEOUT_MS;
    this.http = ledgerHttpClient(config, settings.timeoutMs);
  }

  importStatement(body: ImportBankStatementDto, token: string): Promise<BankStatementView> {
    return this.write(`${BASE}/statements`, body, token);
  }

  run(statementId: string, token: string): Promise<ReconciliationRunView> {
    return this.write(`${BASE}/runs`, { statementId }, token);
  }

  acknowledge(alertId: string, body: AcknowledgeReconciliationAlertDto, token: string): Promise<ReconciliationAlertView> {
    return this.write(`${BASE}/alerts/${alertId}/acknowledge`, body, token);
  }

  resolve(alertId: string, body: ResolveReconciliationAlertDto, token: string): Promise<ReconciliationAlertView> {
    return this.write(`${BASE}/alerts/${alertId}/resolve`, body, token);
  }

  /** A read: `path` under the ledger's reconciliation routes, with its query already encoded. */
  read<
    T extends
      | BankStatementView
      | BankStatementView[]
      | ReconciliationRunView
      | ReconciliationRunView[]
      | ReconciliationAlertView
      | ReconciliationAlertView[]
      | ReconciliationReportView,
  >(path: string, token: string): Promise<T> {
    return this.relay(() => withRetries(this.retry, () => this.http.get<T>(`${BASE}${path}`, bearer(token))));
  }

  private write<T>(path: string, body: unknown, token: string): Promise<T> {
    return this.relay(() => withRetries(ONCE, () => this.http.post<T>(path, body, { ...bearer(token), timeoutMs: this.longTimeoutMs })));
  }

  /** A token the ledger cannot verify although the access guard here accepted it is the platform's fault: 502 (as for audits). */
  private relay<T>(call: () => Promise<T>): Promise<T> {
    return relayOperatorTokenFaults(this.logger, call);
  }
}

const BASE = '/v1/internal/reconciliation';

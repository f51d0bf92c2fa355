import { Injectable } from '@nestjs/common';
import {
  type CreateIntentRequest,
  type LedgerAccountView,
  type LedgerIntentView,
  type LedgerWalletView,
  QR_PAYMENT_ROUTES,
  type QrPaymentsAnswer,
  type QrPaymentsRequest,
  type TransitionRequest,
} from '@mm/contracts';
import { InternalHttpClient } from '@mm/platform';
import { OrchestratorConfig } from '../orchestrator.config';
import { type RetryPolicy, withRetries } from './ledger-retry';

export interface LedgerClientSettings {
  timeoutMs: number;
  retry: RetryPolicy;
}

export function ledgerClientSettings(config: OrchestratorConfig): LedgerClientSettings {
  return {
    timeoutMs: config.LEDGER_TIMEOUT_MS,
    retry: { attempts: config.LEDGER_RETRY_ATTEMPTS, baseDelayMs: config.LEDGER_RETRY_BASE_MS },
  };
}

/**
 * Typed client of the ledger's internal API. Every call carries the service key and the request's
 * correlation id (InternalHttpClient). Writes are retried only when they are idempotent on the
 * ledger's side: creation (its idempotencyKey) and transitions sent with an X-Idempotency-Key.
 */
@Injectable()
export class LedgerClient {
  private readonly http: InternalHttpClient;
  private readonly settings: LedgerClientSettings;

  constructor(config: OrchestratorConfig) {
    this.settings = ledgerClientSettings(config);
    this.http = new InternalHttpClient({
      name: 'ledger-wallets',
      baseUrl: config.LEDGER_URL,
      serviceKey: config.INTERNAL_SERVICE_KEY,
      timeoutMs: this.settings.timeoutMs,
    });
  }

  /** Idempotent on `body.idempotencyKey`: the same body again answers the first intent. */
  createIntent(body: CreateIntentRequest): Promise<LedgerIntentView> {
    return withRetries(this.settings.retry, () => this.http.post<LedgerIntentView>('/v1/internal/intents', body));
  }

  getIntent(intentId: string): Promise<LedgerIntentView> {
    return withRetries(this.settings.retry, () => this.http.get<LedgerIntentView>(`/v1/internal/intents/${intentId}`));
  }

  /**
   * With `idempotencyKey` the move is retried on timeouts and 5xx (the ledger replays its stored
   * answer, so it happens once); without one it is tried once.
   */
  transition(intentId: string, body: TransitionRequest, idempotencyKey?: string): Promise<LedgerIntentView> {
    const call = () => this.http.post<LedgerIntentView>(`/v1/internal/intents/${intentId}/transition`, body, { idempotencyKey });
    return idempotencyKey ? withRetries(this.settings.retry, call) : call();
  }

  account(accountId: string): Promise<LedgerAccountView> {
    return withRetries(this.settings.retry, () => this.http.get<LedgerAccountView>(`/v1/internal/accounts/${accountId}`));
  }

  wallet(walletId: string): Promise<LedgerWalletView> {
    return withRetries(this.settings.retry, () => this.http.get<LedgerWalletView>(`/v1/internal/wallets/${walletId}`));
  }

  /** Which QR tokens an intent paid or may still pay (a read: retried like the others). */
  qrPayments(body: QrPaymentsRequest): Promise<QrPaymentsAnswer> {
    return withRetries(this.settings.retry, () => this.http.post<QrPaymentsAnswer>(QR_PAYMENT_ROUTES.ledger, body));
  }
}

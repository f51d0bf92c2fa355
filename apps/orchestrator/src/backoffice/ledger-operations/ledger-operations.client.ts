import { Injectable, Logger } from '@nestjs/common';
import type { LedgerAccountView } from '@mm/contracts';
import type { InternalHttpClient } from '@mm/platform';
import { ledgerClientSettings } from '../../ledger-client/ledger.client';
import { ledgerHttpClient } from '../../ledger-client/ledger-http';
import { type RetryPolicy, withRetries } from '../../ledger-client/ledger-retry';
import { ONCE, bearer, relayOperatorTokenFaults } from '../../ledger-client/operator-token';
import { OrchestratorConfig } from '../../orchestrator.config';
import type { LedgerCorrection, LedgerCorrectionPreview, LedgerHold } from './ledger-operations.types';

/** The body of `POST /v1/internal/corrections`, both kinds. */
export type LedgerCorrectionRequest =
  | { idempotencyKey: string; kind: 'ACCOUNT'; accountId: string; direction: 'CREDIT' | 'DEBIT'; amount: number; reason: string }
  | { idempotencyKey: string; kind: 'REVERSAL'; referenceId?: string; transactionId?: string; reason: string };

/**
 * The ledger's corrections and holds, called with the orchestrator's service key AND the acting
 * operator's access token (the maker's when submitting, the checker's when deciding): the ledger
 * verifies that token itself and records the operator, as it did when operators called it with the
 * `ops` key. The calls without a token are the engine's, when no person acts: the expiry of a
 * correction nobody decided, and the reads by idempotency key that settle a cut execution.
 *
 * Every write is idempotent at the ledger (the idempotency key is the approval request's id; an
 * approval of an executed correction is recognised by the caller), so a write is retried like the
 * money path's; an expired-token or role refusal is relayed as it is. The ledger refusing a token
 * the access guard here accepted means the two services disagree on auth's keys: 502.
 */
@Injectable()
export class LedgerOperationsClient {
  private readonly logger = new Logger(LedgerOperationsClient.name);
  private readonly http: InternalHttpClient;
  private readonly retry: RetryPolicy;

  constructor(config: OrchestratorConfig) {
    const settings = ledgerClientSettings(config);
    this.retry = settings.retry;
    this.http = ledgerHttpClient(config, settings.timeoutMs);
  }

  submitCorrection(token: string, body: LedgerCorrectionRequest): Promise<LedgerCorrection> {
    return this.relay(() => this.http.post<LedgerCorrection>('/v1/internal/corrections', body, bearer(token)));
  }

  correction(token: string, id: string): Promise<LedgerCorrection> {
    return this.relay(() => this.http.get<LedgerCorrection>(`/v1/internal/corrections/${id}`, bearer(token)));
  }

  corrections(token: string, query: { status?: string; limit?: number }): Promise<LedgerCorrection[]> {
    return this.relay(() => this.http.get<LedgerCorrection[]>(`/v1/internal/corrections${search(query)}`, bearer(token)));
  }

  /** The correction submitted under `key` (an approval request's id), with the orchestrator's credential alone: the engine settling without a person. */
  correctionByKey(key: string): Promise<LedgerCorrection> {
    return this.relay(() => this.http.get<LedgerCorrection>(`/v1/internal/corrections/by-key/${key}`));
  }

  preview(token: string, id: string): Promise<LedgerCorrectionPreview> {
    return this.relay(() => this.http.get<LedgerCorrectionPreview>(`/v1/internal/corrections/${id}/preview`, bearer(token)));
  }

  /** Tried once: a second approval of the same correction is refused (CORRECTION_ALREADY_DECIDED), which the handler reads back. */
  approve(token: string, id: string, reason: string): Promise<LedgerCorrection> {
    return this.relay(() => this.http.post<LedgerCorrection>(`/v1/internal/corrections/${id}/approve`, { reason }, bearer(token)), ONCE);
  }

  reject(token: string, id: string, reason: string): Promise<LedgerCorrection> {
    return this.relay(() => this.http.post<LedgerCorrection>(`/v1/internal/corrections/${id}/reject`, { reason }, bearer(token)), ONCE);
  }

  /** No operator token: the request expired, nobody decided (the ledger journals `system:orchestrator`). */
  expire(id: string, reason: string): Promise<LedgerCorrection> {
    return this.relay(() => this.http.post<LedgerCorrection>(`/v1/internal/corrections/${id}/expire`, { reason }));
  }

  placeHold(
    token: string,
    body: { idempotencyKey: string; accountId: string; amount: number; reason: string; requestedBy?: string },
  ): Promise<LedgerHold> {
    return this.relay(() => this.http.post<LedgerHold>('/v1/internal/holds', body, bearer(token)));
  }

  releaseHold(token: string, id: string, body: { idempotencyKey: string; reason: string; requestedBy?: string }): Promise<LedgerHold> {
    return this.relay(() => this.http.post<LedgerHold>(`/v1/internal/holds/${id}/release`, body, bearer(token)));
  }

  hold(token: string, id: string): Promise<LedgerHold> {
    return this.relay(() => this.http.get<LedgerHold>(`/v1/internal/holds/${id}`, bearer(token)));
  }

  /** The hold placed or released under `key` (an approval request's id), with the orchestrator's credential alone. */
  holdByKey(key: string): Promise<LedgerHold> {
    return this.relay(() => this.http.get<LedgerHold>(`/v1/internal/holds/by-key/${key}`));
  }

  holds(token: string, query: { accountId?: string; status?: string; limit?: number }): Promise<LedgerHold[]> {
    return this.relay(() => this.http.get<LedgerHold[]>(`/v1/internal/holds${search(query)}`, bearer(token)));
  }

  /** An account's balances, with the orchestrator's own credential (the money path's read). */
  account(id: string): Promise<LedgerAccountView> {
    return this.relay(() => this.http.get<LedgerAccountView>(`/v1/internal/accounts/${id}`));
  }

  private relay<T>(call: () => Promise<T>, retry: RetryPolicy = this.retry): Promise<T> {
    return relayOperatorTokenFaults(this.logger, () => withRetries(retry, call));
  }
}

function search(query: Record<string, string | number | undefined>): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) if (value !== undefined) params.set(key, String(value));
  const text = params.toString();
  return text ? `?${text}` : '';
}

/** What the internal API shows of an endpoint (never a secret). */
export interface EndpointView {
  integrationId: string;
  url: string;
  status: 'enabled' | 'disabled';
  failingSince: string | null;
  disabledAt: string | null;
  disabledReason: string | null;
  previousSecretExpiresAt: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface HealthEventView {
  kind: 'disabled' | 'enabled';
  reason: string;
  createdAt: string;
}

/** Where and how to deliver one attempt, or why it must be held. */
export type DeliveryTarget =
  /** `failing`: the endpoint has failed since its last success (a success must clear that) */
  | { kind: 'deliver'; url: string; secrets: string[]; failing: boolean }
  /**
   * The endpoint is enabled but its stored secret does not decrypt with this process's key (the
   * key changed or was lost): nothing can be signed, so the attempt fails before any request.
   */
  | { kind: 'secret_unreadable'; url: string; failing: boolean }
  | { kind: 'hold'; reason: 'no_endpoint' | 'endpoint_disabled' };

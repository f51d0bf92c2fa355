import type { AuditTargetSpec, AuditTargetType } from './audit-metadata';
import type { AuditRouteTag } from './audit-route-tag';

/**
 * `started`: written before the handler of a staff write runs (the request is refused if it cannot
 * be written); `outcome`: how the request was answered (the only record of a read, of a refusal by
 * the access guard and of a proxied request).
 */
export type AuditPhase = 'started' | 'outcome';

/** One record of the trail as the application writes it; the database adds seq, time and hashes. */
export interface StaffAuditEntry {
  phase: AuditPhase;
  actorUserId: string;
  actorRole: string;
  /** method and route template: `POST /api/backoffice/approvals/:id/approve` */
  action: string;
  /** the handler's short name (`approvals.approve`), when a Nest route took the request */
  actionName: string | null;
  targetType: AuditTargetType | null;
  targetId: string | null;
  reason: string | null;
  requestId: string;
  /** null on a started record */
  outcomeStatus: number | null;
  /** the stable error code of a refusal */
  outcomeCode: string | null;
  details: Record<string, unknown>;
}

/** What is known of a request, independent of Fastify. */
export interface AuditedRequest {
  method: string;
  route: string;
  params: unknown;
  query: unknown;
  body: unknown;
  requestId: string;
  tag?: AuditRouteTag;
}

/** How it was answered. */
export interface RequestOutcome {
  status: number;
  /** the serialised answer, when it is text (a stream's body is not read) */
  payload: unknown;
}

const READ_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** A parameter whose value must never reach the trail, whatever route sends it. */
const SECRET_NAME = /pin|otp|token|secret|password|passcode|key$|signature|authorization/i;
const MAX_VALUE = 200;
const MAX_REASON = 500;
/** ids of a list target (a bulk decision) kept in `details.targets` */
const MAX_LIST = 100;

/**
 * Route parameters whose name says what they designate. A write without `@AuditTarget` takes the
 * first parameter of its template named here, or else following a collection named below.
 */
const TARGET_PARAMS: Readonly<Record<string, AuditTargetType>> = {
  customerId: 'person',
  userId: 'person',
  staffId: 'person',
  agentId: 'person',
  merchantId: 'person',
  personId: 'person',
  accountId: 'account',
  walletId: 'account',
  transactionId: 'transaction',
  intentId: 'transaction',
  approvalId: 'approval',
  integrationId: 'integration',
  eventId: 'webhook-event',
  endpointId: 'webhook-endpoint',
  workflowId: 'workflow',
  sagaId: 'workflow',
  holdId: 'hold',
};

/** The collection a parameter follows in a route template (`/approvals/:id`), for parameters with a generic name. */
const TARGET_COLLECTIONS: Readonly<Record<string, AuditTargetType>> = {
  people: 'person',
  customers: 'person',
  users: 'person',
  staff: 'person',
  agents: 'person',
  merchants: 'person',
  accounts: 'account',
  transactions: 'transaction',
  operations: 'transaction',
  intents: 'transaction',
  approvals: 'approval',
  integrations: 'integration',
  events: 'webhook-event',
  endpoints: 'webhook-endpoint',
  workflows: 'workflow',
  holds: 'hold',
};

function clip(value: string, max: number): string {
  return value.length > max ? `${value.slice(0, max)}…` : value;
}

/** Route parameters or a query as flat strings, secrets replaced, long values cut. */
export function safeFields(source: unknown): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  if (!source || typeof source !== 'object') return out;
  for (const [name, value] of Object.entries(source as Record<string, unknown>)) {
    if (SECRET_NAME.test(name)) {
      out[name] = '[redacted]';
    } else if (Array.isArray(value)) {
      out[name] = value.slice(0, 20).map((v) => clip(String(v), MAX_VALUE));
    } else if (value !== undefined && value !== null && typeof value !== 'object') {
      out[name] = clip(String(value), MAX_VALUE);
    }
  }
  return out;
}

export function isRead(method: string): boolean {
  return READ_METHODS.has(method.toUpperCase());
}

/** Recorded: every write, and every read of a route marked `@AuditedRead`. */
export function isAudited(method: string, tag: AuditRouteTag | undefined): boolean {
  return !isRead(method) || tag?.read !== undefined;
}

interface Target {
  targetType: AuditTargetType | null;
  targetId: string | null;
  /** every id of a list target */
  targets?: string[];
}

function targetOf(
  route: string,
  specs: AuditTargetSpec | AuditTargetSpec[] | undefined,
  params: Record<string, string | string[]>,
  query: Record<string, string | string[]>,
  body: unknown,
): Target {
  const pick = (v: string | string[] | undefined) => (typeof v === 'string' ? v : null);
  const fields = body && typeof body === 'object' ? (body as Record<string, unknown>) : {};
  const list = specs === undefined ? [] : Array.isArray(specs) ? specs : [specs];
  // the first spec whose field the request carries, else the last (its type, no id)
  const spec = list.find((s) => (s.body !== undefined ? fields[s.body] !== undefined : true)) ?? list[list.length - 1];
  if (spec?.body !== undefined) {
    const value = fields[spec.body];
    if (Array.isArray(value)) {
      const ids = value
        .filter((v): v is string => typeof v === 'string')
        .slice(0, MAX_LIST)
        .map((v) => clip(v, MAX_VALUE));
      return { targetType: spec.type, targetId: ids.length === 1 ? ids[0] : null, targets: ids };
    }
    return {
      targetType: spec.type,
      targetId: typeof value === 'string' || typeof value === 'number' ? clip(String(value), MAX_VALUE) : null,
    };
  }
  if (spec) {
    const id = spec.param ? pick(params[spec.param]) : spec.query ? pick(query[spec.query]) : null;
    return { targetType: spec.type, targetId: id };
  }
  // The first parameter of the template whose name, or else the collection before it, says what it is.
  const segments = route.split('/');
  for (let i = 0; i < segments.length; i++) {
    if (!segments[i].startsWith(':')) continue;
    const name = segments[i].slice(1);
    const type = TARGET_PARAMS[name] ?? TARGET_COLLECTIONS[segments[i - 1] ?? ''];
    const id = pick(params[name]);
    if (type && id !== null) return { targetType: type, targetId: id };
  }
  return { targetType: null, targetId: null };
}

function textOf(payload: unknown): string | null {
  return typeof payload === 'string' ? payload : Buffer.isBuffer(payload) ? payload.toString('utf8') : null;
}

/**
 * The `id` of a successful JSON answer (what the write created: an approval request, a
 * correction, a staff member), when it is not the target itself.
 */
export function resultIdOf(status: number, payload: unknown): string | null {
  if (status < 200 || status >= 300) return null;
  const text = textOf(payload);
  if (!text || !text.startsWith('{')) return null;
  try {
    const id = (JSON.parse(text) as { id?: unknown }).id;
    return typeof id === 'string' && id.length <= MAX_VALUE ? id : null;
  } catch {
    return null;
  }
}

/** The stable code of an error body, if the answer is one. */
export function errorCodeOf(status: number, payload: unknown): string | null {
  if (status < 400) return null;
  const text = textOf(payload);
  if (!text) return null;
  try {
    const code = (JSON.parse(text) as { code?: unknown }).code;
    return typeof code === 'string' && code.length <= 100 ? code : null;
  } catch {
    return null;
  }
}

/**
 * A record of one staff request: who, what (method and route template, the handler's name),
 * about what, why (the body's `reason`), the request id and, given its outcome, how it was
 * answered; without one, the `started` record of a write about to run. `details` holds the route
 * parameters, the query of a read, every id of a list target (`targets`) and the id the answer
 * gave (`resultId`); never a body, and never a parameter named like a secret.
 */
export function buildEntry(actor: { userId: string; role: string }, req: AuditedRequest, outcome?: RequestOutcome): StaffAuditEntry {
  const params = safeFields(req.params);
  const query = isRead(req.method) ? safeFields(req.query) : {};
  const { targets, ...target } = targetOf(req.route, req.tag?.read ?? req.tag?.target, params, query, req.body);
  const details: Record<string, unknown> = {};
  if (Object.keys(params).length > 0) details.params = params;
  if (Object.keys(query).length > 0) details.query = query;
  if (targets) details.targets = targets;
  const resultId = outcome && !isRead(req.method) ? resultIdOf(outcome.status, outcome.payload) : null;
  if (resultId !== null && resultId !== target.targetId) details.resultId = resultId;
  const rawReason = (req.body as { reason?: unknown } | null | undefined)?.reason;
  const reason = typeof rawReason === 'string' && rawReason.trim() !== '' ? clip(rawReason.trim(), MAX_REASON) : null;
  return {
    phase: outcome ? 'outcome' : 'started',
    actorUserId: actor.userId,
    actorRole: actor.role,
    action: `${req.method.toUpperCase()} ${req.route}`,
    actionName: req.tag?.name ?? null,
    ...target,
    reason,
    requestId: req.requestId,
    outcomeStatus: outcome?.status ?? null,
    outcomeCode: outcome ? errorCodeOf(outcome.status, outcome.payload) : null,
    details,
  };
}

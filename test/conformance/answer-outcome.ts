import type { Answer, Operation } from './answer-checker';

/**
 * What an answer says about how far its request got: past routing, past the caller's credentials,
 * past validation. The conformance test counts an operation as reached only on an answer that
 * got through all three, and excuses a refused generated body only for a rule between fields.
 */
export interface ErrorBody {
  code?: string;
  message?: string;
  errors?: Array<{ field?: string; code?: string }>;
}

/** Refusals of the request's shape, before the operation's own logic. */
const NOT_PAST_VALIDATION = new Set(['VALIDATION_ERROR', 'MALFORMED_JSON']);

/** Refusals of the caller's role, which the guards give before the request is validated. */
const ROLE_REFUSALS = new Set(['FORBIDDEN', 'OPERATOR_ROLE_REQUIRED']);

/**
 * The message every service gives a request no route matches (libs/platform's routeMiss). It
 * shares the code NOT_FOUND with "no such resource", which an operation may rightly answer (an id
 * that does not exist), so the message tells them apart; the conformance test checks on each
 * service that a real route miss is still recognised, so a new wording cannot slip past.
 */
const ROUTE_MISS_MESSAGE = /^Route [A-Z]+ \S+ not found$/;

export function errorBodyOf(answer: Answer): ErrorBody {
  try {
    const body = JSON.parse(answer.text) as unknown;
    return body && typeof body === 'object' ? (body as ErrorBody) : {};
  } catch {
    return {};
  }
}

/** No route took the request: the path is not served, or not under this method. */
export function isRouteMiss(answer: Answer): boolean {
  if (answer.status === 405) return true;
  const body = errorBodyOf(answer);
  return answer.status === 404 && body.code === 'NOT_FOUND' && ROUTE_MISS_MESSAGE.test(body.message ?? '');
}

/** The operation's own logic ran: routed, the caller accepted, the request valid. */
export function reachedPastValidation(operation: Operation, answer: Answer): boolean {
  if (answer.status >= 500 || answer.status === 429 || isRouteMiss(answer)) return false;
  const { code = '' } = errorBodyOf(answer);
  // A 401 on a route that takes credentials refused them, not the request; on a public route
  // (refresh, login) it is the answer to the request itself.
  const takesCredentials = Boolean(operation.security?.length);
  if (takesCredentials && (answer.status === 401 || ROLE_REFUSALS.has(code))) return false;
  return !NOT_PAST_VALIDATION.has(code);
}

/** A rule between fields that no JSON schema states, and the fields its refusals name. */
export interface CrossFieldRule {
  rule: string;
  /** top-level names or paths; a refusal of a field nested under one (`fees[0].to`) is the rule's too */
  fields: readonly string[];
}

function within(field: string, of: string): boolean {
  return field === of || field.startsWith(`${of}.`) || field.startsWith(`${of}[`);
}

/**
 * A VALIDATION_ERROR that the rule explains: every field it names is one of the rule's. A refusal
 * naming no field, or any other field, is the document's fault and is not excused.
 */
export function excusedByRule(rule: CrossFieldRule | undefined, body: ErrorBody): boolean {
  if (!rule || body.code !== 'VALIDATION_ERROR' || !body.errors?.length) return false;
  return body.errors.every(({ field }) => field !== undefined && rule.fields.some((of) => within(field, of)));
}

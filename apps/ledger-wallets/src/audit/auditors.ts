import type { FastifyRequest } from 'fastify';
import { ApiErrors, currentContext } from '@mm/platform';
import { type OperatorIdentity, OperatorTokens } from '../corrections/operator-tokens.service';

/**
 * The roles of auth's access tokens that may run an account audit or an integrity check on demand:
 * compliance officers and administrators, as the orchestrator's role matrix grants
 * `compliance.audit` and `compliance.integrity`. Anyone else gets 403 OPERATOR_ROLE_REQUIRED.
 */
export const AUDITOR_ROLES: readonly string[] = ['COMPLIANCE', 'ADMIN'];

/**
 * The operator behind an audit or integrity-check request: the access token verified (401
 * OPERATOR_TOKEN_REQUIRED / TOKEN_INVALID / TOKEN_EXPIRED), then one of AUDITOR_ROLES required
 * (403 OPERATOR_ROLE_REQUIRED, the message naming `step`).
 */
export async function identifyAuditor(tokens: OperatorTokens, authorization: string | undefined, step: string): Promise<OperatorIdentity> {
  const operator = await tokens.identify(authorization);
  OperatorTokens.require(operator, AUDITOR_ROLES, step);
  return operator;
}

/**
 * What every auditor route can answer before its own work: the service key refused by
 * ServiceKeyGuard (401 INVALID_SERVICE_CREDENTIALS, 403 SERVICE_NOT_ALLOWED), then the refusals of
 * `identifyAuditor`.
 */
export const ApiAuditorErrors = () =>
  ApiErrors(
    'INVALID_SERVICE_CREDENTIALS',
    'SERVICE_NOT_ALLOWED',
    'OPERATOR_TOKEN_REQUIRED',
    'TOKEN_INVALID',
    'TOKEN_EXPIRED',
    'OPERATOR_ROLE_REQUIRED',
  );

/** Who asked, as the ledger records it: the operator the token names, the calling service, the request. */
export interface AuditRequester {
  operator: OperatorIdentity;
  /** the service whose key came with the request (`orchestrator`, `ops`) */
  caller: string | undefined;
  requestId: string | undefined;
  correlationId: string | undefined;
}

export function auditRequester(operator: OperatorIdentity, request: FastifyRequest): AuditRequester {
  const ctx = currentContext();
  return {
    operator,
    caller: request.serviceCaller ?? undefined,
    requestId: ctx?.requestId,
    correlationId: ctx?.correlationId,
  };
}

import type { FastifyRequest } from 'fastify';
import { currentContext } from '@mm/platform';
import type { OperatorIdentity } from '../corrections/operator-tokens.service';

/**
 * The roles of auth's access tokens that may run an account audit or an integrity check on demand:
 * compliance officers and administrators, as the orchestrator's role matrix grants
 * `compliance.audit` and `compliance.integrity`. Anyone else gets 403 OPERATOR_ROLE_REQUIRED.
 */
export const AUDITOR_ROLES: readonly string[] = ['COMPLIANCE', 'ADMIN'];

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

import type { FastifyRequest } from 'fastify';
import { currentContext } from '@mm/platform';
import { ApiAuditorErrors } from '../audit/auditors';
import { type OperatorIdentity, OperatorTokens } from '../corrections/operator-tokens.service';

/**
 * Who may import statements, run reconciliations and decide their alerts: compliance officers and
 * administrators, the roles the orchestrator grants `compliance.reconciliation`. The ledger checks
 * the officer's own token again (403 OPERATOR_ROLE_REQUIRED otherwise) and records them.
 */
export const RECONCILER_ROLES: readonly string[] = ['COMPLIANCE', 'ADMIN'];

/** Who acted, as every reconciliation row records it. */
export interface Reconciler {
  operator: OperatorIdentity;
  caller: string | null;
  requestId: string | null;
  correlationId: string | null;
}

export async function identifyReconciler(
  tokens: OperatorTokens,
  authorization: string | undefined,
  request: FastifyRequest,
  step: string,
): Promise<Reconciler> {
  const operator = await tokens.identify(authorization);
  OperatorTokens.require(operator, RECONCILER_ROLES, step);
  const ctx = currentContext();
  return { operator, caller: request.serviceCaller ?? null, requestId: ctx?.requestId ?? null, correlationId: ctx?.correlationId ?? null };
}

/**
 * The refusals every reconciliation route may answer before its own work: the service key, then the
 * operator's token and role, the same checks (and so the same list) as the audit routes.
 */
export const ApiReconcilerErrors = ApiAuditorErrors;

import type { InternalCallerTable } from '@mm/platform';

/**
 * Who may call each internal route of auth (docs/service-credentials.md): the orchestrator alone —
 * its registration and PIN-reset sagas, its staff and admin routes (identity-clients.ts) and its
 * access guard (introspection). Anything not listed is refused.
 */
export const AUTH_INTERNAL_CALLERS: InternalCallerTable = {
  'POST /auth/internal/create-idp-user': ['orchestrator'],
  'POST /auth/internal/create-local-user': ['orchestrator'],
  'DELETE /auth/internal/idp-user/:id': ['orchestrator'],
  'DELETE /auth/internal/local-user/:id': ['orchestrator'],
  'GET /auth/internal/users/by-phone': ['orchestrator'],
  'PUT /auth/internal/users/:id/status': ['orchestrator'],
  'PUT /auth/internal/users/:id/roles': ['orchestrator'],
  'POST /auth/internal/verify-reset-pin-otp': ['orchestrator'],
  'POST /auth/internal/reset-pin': ['orchestrator'],
  'POST /auth/internal/introspect': ['orchestrator'],
  // its operator routes (docs/roles.md "People in the back office"): the person 360 view, end all sessions, the second-factor reset
  'GET /auth/internal/users/:id/security': ['orchestrator'],
  'POST /auth/internal/users/:id/sessions/revoke-all': ['orchestrator'],
  'POST /auth/internal/users/:id/second-factor/reset': ['orchestrator'],
};

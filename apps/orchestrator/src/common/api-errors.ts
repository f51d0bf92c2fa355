import { applyDecorators } from '@nestjs/common';
import { ApiBearerAuth, ApiResponse } from '@nestjs/swagger';

/** Shared with every service; re-exported so the orchestrator's imports stay short. */
export { ApiErrors } from '@mm/platform';

const ERROR_BODY = { schema: { $ref: '#/components/schemas/ErrorBody' } };

/**
 * A route behind the access guard: bearer token, 401 without a usable one, 403 without the
 * permission or for a frozen account. `forbidden`: the route's own further 403 answers, added to
 * the guard's.
 */
export function ApiAdminRoute(permission: string, forbidden?: string) {
  return applyDecorators(
    ApiBearerAuth(),
    ApiResponse({
      status: 401,
      description: '`UNAUTHORIZED`: no access token; `TOKEN_INVALID`, `TOKEN_EXPIRED`, `TOKEN_REVOKED`: the token cannot be used',
      ...ERROR_BODY,
    }),
    ApiResponse({
      status: 403,
      description:
        `\`FORBIDDEN\`: the caller lacks the \`${permission}\` permission; \`ACCOUNT_DISABLED\`: the caller's account is frozen` +
        (forbidden ? `; ${forbidden}` : ''),
      ...ERROR_BODY,
    }),
  );
}

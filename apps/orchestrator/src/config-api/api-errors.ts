import { applyDecorators } from '@nestjs/common';
import { ApiBearerAuth, ApiResponse } from '@nestjs/swagger';

/** Shared with every service; re-exported so the orchestrator's imports stay short. */
export { ApiErrors } from '@mm/platform';

/** A route behind the access guard: bearer token, 401 without a valid one, 403 without the permission. */
export function ApiAdminRoute(permission: string) {
  return applyDecorators(
    ApiBearerAuth(),
    ApiResponse({ status: 401, description: '`UNAUTHORIZED`: no valid access token', schema: { $ref: '#/components/schemas/ErrorBody' } }),
    ApiResponse({
      status: 403,
      description: `\`FORBIDDEN\`: the caller lacks the \`${permission}\` permission`,
      schema: { $ref: '#/components/schemas/ErrorBody' },
    }),
  );
}

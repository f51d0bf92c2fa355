import { applyDecorators } from '@nestjs/common';
import { ApiResponse } from '@nestjs/swagger';
import { ERROR_CATALOG, type ErrorCode } from '@mm/errors';

/**
 * One `@ApiResponse` per status, listing the stable codes a route can answer with (the body is
 * always the platform's ErrorBody).
 */
export function ApiErrors(...codes: ErrorCode[]): MethodDecorator & ClassDecorator {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of codes) {
    const status = ERROR_CATALOG[code].status;
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  return applyDecorators(
    ...[...byStatus].map(([status, list]) =>
      ApiResponse({
        status,
        description: list.map((c) => `\`${c}\`: ${ERROR_CATALOG[c].message}`).join('; '),
        schema: { $ref: '#/components/schemas/ErrorBody' },
      }),
    ),
  );
}

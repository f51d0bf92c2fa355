import { applyDecorators } from '@nestjs/common';
import { ApiResponse } from '@nestjs/swagger';
import { ERROR_CATALOG, type ErrorCode } from '@mm/errors';

/**
 * Documents the error answers of a route (or of every route of a controller, when put on the
 * class): one OpenAPI response per status, listing the stable codes a client may receive with it,
 * each with the platform error body. Statuses come from the catalogue, so the document cannot
 * drift from what the exception filter answers.
 */
export function ApiErrors(...codes: ErrorCode[]) {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of codes) {
    const status = ERROR_CATALOG[code].status;
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  return applyDecorators(
    ...[...byStatus].map(([status, list]) =>
      ApiResponse({
        status,
        description: list.map((code) => `\`${code}\`: ${ERROR_CATALOG[code].message}`).join('; '),
        schema: { $ref: '#/components/schemas/ErrorBody' },
      }),
    ),
  );
}

import { UseGuards, applyDecorators } from '@nestjs/common';
import { ApiBearerAuth, ApiHeader } from '@nestjs/swagger';
import { PartnerAuthGuard } from '../keys/partner-auth.guard';
import { ApiErrors } from '@mm/platform';
import { JsonBodyGuard } from './json-body.guard';

/**
 * What every public partner route shares: the API-key guard (with the rate limit), the bearer
 * scheme, and the errors any route can answer with.
 */
export function PartnerApi(): ClassDecorator {
  return applyDecorators(
    UseGuards(PartnerAuthGuard, JsonBodyGuard),
    ApiBearerAuth(),
    ApiHeader({ name: 'Authorization', required: true, description: 'Bearer svc_sk_live_… or Bearer svc_sk_test_…' }),
    ApiErrors(
      'INVALID_INTEGRATION_CREDENTIALS',
      'INTEGRATION_REVOKED',
      'RATE_LIMITED',
      'MALFORMED_JSON',
      'UNSUPPORTED_MEDIA_TYPE',
      'PAYLOAD_TOO_LARGE',
    ),
  );
}

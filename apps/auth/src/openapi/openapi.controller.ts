import { Controller, Get } from '@nestjs/common';
import { AUTH_OPENAPI } from './openapi.document';

/** The OpenAPI document of the auth service (paths as the service sees them; `/api` prefix through the gateway). */
@Controller('auth')
export class OpenApiController {
  @Get('openapi.json')
  document(): typeof AUTH_OPENAPI {
    return AUTH_OPENAPI;
  }
}

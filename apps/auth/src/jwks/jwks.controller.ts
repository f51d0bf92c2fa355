import { Controller, Get, Header } from '@nestjs/common';
import { ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { ApiErrors } from '@mm/platform';
import type { JSONWebKeySet } from 'jose';
import { AccessTokenService } from '../sessions/access-token.service';
import { JwksView } from './jwks.views';

/** Public keys for verifying access tokens offline (other services cache this document). */
@ApiTags('auth')
@Controller('auth/.well-known')
export class JwksController {
  constructor(private readonly tokens: AccessTokenService) {}

  @Get('jwks.json')
  @ApiErrors('INTERNAL_ERROR')
  @ApiOkResponse({ type: JwksView, description: 'the public key set (cacheable for 5 minutes)' })
  @Header('cache-control', 'public, max-age=300')
  jwks(): Promise<JSONWebKeySet> {
    return this.tokens.jwks();
  }
}

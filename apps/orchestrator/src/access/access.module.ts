import { Global, Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { AccessGuard } from './access.guard';
import { AccessTokens } from './access-tokens.service';
import { DeprecationHeaders } from './deprecated-route';

/**
 * The access guard on every orchestrator route, and the token checks behind it. The deprecation
 * marker is registered first: global guards run in this order.
 */
@Global()
@Module({
  providers: [AccessTokens, { provide: APP_GUARD, useClass: DeprecationHeaders }, { provide: APP_GUARD, useClass: AccessGuard }],
  exports: [AccessTokens],
})
export class AccessModule {}

import { type ExecutionContext, createParamDecorator } from '@nestjs/common';
import type { PartnerMode } from '@mm/contracts';

/** The integration behind a verified API key, as the guard established it. */
export interface PartnerPrincipal {
  integrationId: string;
  keyId: string;
  mode: PartnerMode;
  livemode: boolean;
}

export interface PartnerRequest {
  partner?: PartnerPrincipal;
}

/** `@CurrentPartner() partner: PartnerPrincipal` on a route guarded by PartnerAuthGuard. */
export const CurrentPartner = createParamDecorator((_: unknown, ctx: ExecutionContext): PartnerPrincipal => {
  const request = ctx.switchToHttp().getRequest<PartnerRequest>();
  if (!request.partner) throw new Error('CurrentPartner used on a route without PartnerAuthGuard');
  return request.partner;
});

import { SetMetadata, UseGuards, applyDecorators, createParamDecorator, type ExecutionContext } from '@nestjs/common';
import { ApiExtension, ApiSecurity } from '@nestjs/swagger';
import type { AppRole } from '@mm/contracts';
import { ServiceKeyGuard } from '@mm/platform';
import type { Permission } from './permission-list';
import { rolesWith } from './role-matrix';

export { PERMISSIONS, type Permission } from './permission-list';

export const REQUIRED_PERMISSIONS = 'mm:required-permissions';
export const PUBLIC_ROUTE = 'mm:public-route';
export const INTERNAL_ROUTE = 'mm:internal-route';

/**
 * The route needs an authenticated user holding every listed permission. The route's OpenAPI
 * operation lists the permissions (`x-required-permissions`) and the roles of the matrix that hold
 * them (`x-allowed-roles`), so the document cannot drift from what the guard enforces.
 */
export const RequirePermission = (...permissions: Permission[]) =>
  applyDecorators(
    SetMetadata(REQUIRED_PERMISSIONS, permissions),
    ApiExtension('x-required-permissions', permissions),
    ApiExtension('x-allowed-roles', rolesWith(permissions)),
  );

/** The route needs no access token (registration, PIN reset, public config); its operation says so (`x-public-route`). */
export const PublicRoute = () => applyDecorators(SetMetadata(PUBLIC_ROUTE, true), ApiExtension('x-public-route', true));

/**
 * Service-to-service route (`/api/internal/*`): the calling service's key (checked against this service's caller table) instead of a user's token.
 * The access guard stands aside; ServiceKeyGuard decides.
 */
export const InternalRoute = () =>
  applyDecorators(SetMetadata(INTERNAL_ROUTE, true), UseGuards(ServiceKeyGuard), ApiSecurity('serviceKey'));

/** Who is calling, as the access guard established it from a verified, unrevoked access token. */
export interface AuthUser {
  /** auth's local user id (the token's `sub`) */
  userId: string;
  sessionId: string;
  /** the application role (see `@mm/contracts` APP_ROLES): CUSTOMER (end user), MERCHANT, AGENT, MASTER_AGENT, SUPPORT, COMPLIANCE, ADMIN */
  role: AppRole;
  permissions: readonly Permission[];
  /** the raw bearer token, for calls that auth must see (check-pin with the user's session) */
  accessToken: string;
}

/** `@CurrentUser() user: AuthUser` in a controller guarded by the access guard. */
export const CurrentUser = createParamDecorator((_: unknown, ctx: ExecutionContext): AuthUser => {
  const request = ctx.switchToHttp().getRequest<{ user?: AuthUser }>();
  if (!request.user) throw new Error('CurrentUser used on a route without the access guard');
  return request.user;
});

import { type DynamicModule, Module, type Provider, type Type } from '@nestjs/common';
import type { Redis } from 'ioredis';
import { INTERNAL_CALLER_TABLE, PlatformModule, REDIS } from '@mm/platform';
import { type AuthConfig, assertProductionSecrets } from './auth.config';
import { BootstrapAdminService } from './bootstrap/bootstrap-admin.service';
import { AuthSecrets } from './crypto/auth-secrets';
import { resolveAuthSecrets } from './crypto/shared-dev-keys';
import { PinHasher } from './crypto/pin-hasher.service';
import { IdentityProvider } from './identity/identity-provider';
import { LocalIdentityProvider } from './identity/local-identity-provider';
import { AUTH_INTERNAL_CALLERS } from './internal-callers';
import { InternalController } from './internal/internal.controller';
import { IntrospectionService } from './internal/introspection.service';
import { JwksController } from './jwks/jwks.controller';
import { DeprecatedController } from './legacy/deprecated.controller';
import { AuthController } from './login/auth.controller';
import { LoginService } from './login/login.service';
import { DevSmsController } from './notifications/dev-sms.controller';
import { DevSmsSender } from './notifications/dev-sms-sender';
import { HttpSmsSender } from './notifications/http-sms-sender';
import { SmsSender } from './notifications/sms-sender';
import { OtpController } from './otp/otp.controller';
import { AuthCleanup } from './otp/otp-cleanup.service';
import { OtpThrottle } from './otp/otp-throttle.service';
import { OtpService } from './otp/otp.service';
import { PinController } from './pin/pin.controller';
import { PinResetService } from './pin/pin-reset.service';
import { PinService } from './pin/pin.service';
import { RateLimitGuard } from './rate-limit/rate-limit.guard';
import { RateLimiter } from './rate-limit/rate-limiter.service';
import { AccessTokenGuard } from './sessions/access-token.guard';
import { AccessTokenService } from './sessions/access-token.service';
import { ConsentProofIssuer } from './sessions/consent-proof.service';
import { RefreshGraceStore } from './sessions/refresh-grace.store';
import { SessionService } from './sessions/session.service';
import { TokenIssuer } from './sessions/token-issuer.service';
import { ChallengeStore } from './second-factor/challenge.store';
import { SecondFactorService } from './second-factor/second-factor.service';
import { SecondFactorStore } from './second-factor/second-factor.store';
import { TotpSecretBox } from './second-factor/totp-secret-box';
import { UserSecurityService } from './second-factor/user-security.service';
import { UserSecurityController } from './internal/user-security.controller';
import { AccountsService } from './users/accounts.service';
import { LocalUserStore } from './users/local-user.store';
import { PinLockout } from './users/pin-lockout.service';
import { UnknownPhoneLockoutStore } from './users/unknown-phone-lockout.store';

@Module({})
export class AuthModule {
  static forRoot(config: AuthConfig): DynamicModule {
    assertProductionSecrets(config);
    const devSms = config.SMS_DRIVER === 'dev';
    const providers: Provider[] = [
      { provide: INTERNAL_CALLER_TABLE, useValue: AUTH_INTERNAL_CALLERS },
      // Keys left unset outside production are shared by the replicas through Redis (shared-dev-keys.ts).
      { provide: AuthSecrets, useFactory: (redis: Redis) => resolveAuthSecrets(config, redis), inject: [REDIS] },
      PinHasher,
      { provide: IdentityProvider, useClass: LocalIdentityProvider },
      LocalUserStore,
      PinLockout,
      UnknownPhoneLockoutStore,
      AccountsService,
      AccessTokenService,
      ConsentProofIssuer,
      RefreshGraceStore,
      SessionService,
      TokenIssuer,
      AccessTokenGuard,
      LoginService,
      RateLimiter,
      RateLimitGuard,
      OtpThrottle,
      OtpService,
      AuthCleanup,
      PinService,
      PinResetService,
      IntrospectionService,
      TotpSecretBox,
      SecondFactorStore,
      ChallengeStore,
      SecondFactorService,
      UserSecurityService,
      BootstrapAdminService,
      ...(devSms ? [DevSmsSender, { provide: SmsSender, useExisting: DevSmsSender }] : [{ provide: SmsSender, useClass: HttpSmsSender }]),
    ];
    const controllers: Type[] = [
      AuthController,
      OtpController,
      PinController,
      InternalController,
      UserSecurityController,
      DeprecatedController,
      JwksController,
    ];
    // The dev outbox route never exists in production (assertProductionSecrets also refuses the dev driver there).
    if (devSms && config.NODE_ENV !== 'production') controllers.push(DevSmsController);
    return {
      module: AuthModule,
      imports: [PlatformModule.forRoot({ service: 'auth', config, database: { schema: 'auth' }, redis: true })],
      controllers,
      providers,
    };
  }
}

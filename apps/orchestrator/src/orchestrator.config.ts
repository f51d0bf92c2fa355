import { IsBoolean, IsInt, IsOptional, IsUrl, Min } from 'class-validator';
import { DEFAULT_DATABASE_NAME, SERVICES } from '@mm/contracts';
import { DatabaseConfig, EnvBoolean } from '@mm/platform';

const local = (port: number) => `http://127.0.0.1:${port}`;
const URL_RULE = { require_tld: false, protocols: ['http', 'https'], require_protocol: true };

export class OrchestratorConfig extends DatabaseConfig {
  override PORT = SERVICES.orchestrator.port;
  /** the public entry point; every other app binds to loopback or the internal network */
  override HOST = '0.0.0.0';
  override DATABASE_URL = `postgres://${SERVICES.orchestrator.role}@127.0.0.1:5432/${DEFAULT_DATABASE_NAME}`;

  @IsUrl(URL_RULE)
  AUTH_URL: string = local(SERVICES.auth.port);

  @IsUrl(URL_RULE)
  PARTNERS_URL: string = local(SERVICES.partners.port);

  @IsUrl(URL_RULE)
  LEDGER_URL: string = local(SERVICES['ledger-wallets'].port);

  @IsUrl(URL_RULE)
  WEBHOOK_DISPATCHER_URL: string = local(SERVICES['webhook-dispatcher'].port);

  /** a proxied request with no answer after this long gets 504 UPSTREAM_TIMEOUT */
  @IsInt()
  @Min(100)
  UPSTREAM_TIMEOUT_MS: number = 10_000;

  /** per-service budget of GET /api/health */
  @IsInt()
  @Min(100)
  HEALTH_TIMEOUT_MS: number = 2_000;

  /**
   * Spec 3: in staging and review each service's health is also reachable at `/hz/<service>`.
   * Unset: on everywhere but production.
   */
  @IsOptional()
  @EnvBoolean()
  @IsBoolean()
  HZ_ROUTES_ENABLED?: boolean;

  get hzRoutesEnabled(): boolean {
    return this.HZ_ROUTES_ENABLED ?? this.NODE_ENV !== 'production';
  }
}

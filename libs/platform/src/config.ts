import 'reflect-metadata';
import { Transform, plainToInstance } from 'class-transformer';
import {
  IsBoolean,
  IsIn,
  IsInt,
  IsString,
  Max,
  Min,
  MinLength,
  ValidateBy,
  type ValidationArguments,
  getMetadataStorage,
  validateSync,
} from 'class-validator';
import { trustedCallersProblem } from './service-credentials';

export const CONFIG = Symbol('CONFIG');

/**
 * Parses "true"/"1"/"yes" and "false"/"0"/"no"; anything else stays as is and fails @IsBoolean.
 * Reads the raw source value: implicit conversion would already have made "false" truthy.
 */
export function EnvBoolean(): PropertyDecorator {
  return Transform(({ obj, key, value }) => {
    const raw: unknown = (obj as Record<string, unknown>)[key] ?? value;
    if (typeof raw !== 'string') return raw;
    const v = raw.trim().toLowerCase();
    if (['true', '1', 'yes'].includes(v)) return true;
    if (['false', '0', 'no', ''].includes(v)) return false;
    return raw;
  });
}

/**
 * A config rule that needs more than one field, or a parser, written as one function: what is wrong
 * with the variable (a phrase that follows its name in the boot error), or undefined when nothing
 * is. The value is never quoted back: it may be a secret.
 */
export function ConfigRule<C extends object>(name: string, problem: (value: unknown, config: C) => string | undefined): PropertyDecorator {
  return ValidateBy({
    name,
    validator: {
      validate: (value: unknown, args?: ValidationArguments) => problem(value, args!.object as C) === undefined,
      defaultMessage: (args?: ValidationArguments) => `${args!.property} ${problem(args!.value, args!.object as C) ?? 'is invalid'}`,
    },
  });
}

/** Variables every app reads. Apps extend this class; defaults are the local development values. */
export class BaseConfig {
  @IsIn(['development', 'test', 'production'])
  NODE_ENV: 'development' | 'test' | 'production' = 'development';

  @IsString()
  HOST: string = '127.0.0.1';

  @IsInt()
  @Min(0)
  @Max(65535)
  PORT: number = 3000;

  @IsIn(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])
  LOG_LEVEL: string = 'info';

  @EnvBoolean()
  @IsBoolean()
  LOG_PRETTY: boolean = false;

  @IsString()
  REDIS_URL: string = 'redis://127.0.0.1:6379';

  /** Namespace of every Redis key and BullMQ queue (tests give each file its own). */
  @IsString()
  @MinLength(1)
  REDIS_PREFIX: string = 'mm';

  /**
   * This service's own credential, presented in X-Service-Key on every call it makes to another
   * service (each service has its own; docs/service-credentials.md).
   */
  @IsString()
  @MinLength(32, { message: 'INTERNAL_SERVICE_KEY must be at least 32 characters' })
  INTERNAL_SERVICE_KEY: string;

  /**
   * Who may call this service's internal routes: `caller:sha256hex[:sha256hex],…`, the SHA-256 of
   * each accepted caller's key (two during a rotation). Which routes each caller may use is the
   * app's own table. Empty: no caller is recognised (allowed in development and test only).
   */
  // Must parse, and must be set in production.
  @ConfigRule<BaseConfig>('trustedCallers', (value, config) => trustedCallersProblem(value, config.NODE_ENV))
  INTERNAL_TRUSTED_CALLERS: string = '';

  @IsInt()
  @Min(1024)
  BODY_LIMIT_BYTES: number = 1_048_576;

  /** Upper bound for a graceful shutdown before the process exits anyway. */
  @IsInt()
  @Min(100)
  SHUTDOWN_TIMEOUT_MS: number = 10_000;
}

/** Apps that own a schema. */
export class DatabaseConfig extends BaseConfig {
  /** Connection as the service's own role (it can only use its own schema). */
  @IsString()
  DATABASE_URL: string;

  @IsInt()
  @Min(1)
  DB_POOL_SIZE: number = 10;

  /**
   * How long a pooled connection may sit unused before the pool closes it (ms). pg-pool's own
   * default is 10 s, which empties the pool between two bursts more than 10 s apart: the next burst
   * then pays a backend start per connection and plans every prepared statement again
   * (docs/performance.md "Warm pools"). The pool never holds more than DB_POOL_SIZE either way; a
   * lower value gives connections back to a shared server (or PgBouncer) sooner. At most an hour
   * (a timer beyond 2^31 ms would fire at once).
   */
  @IsInt()
  @Min(1_000)
  @Max(3_600_000)
  DB_POOL_IDLE_MS: number = 300_000;
}

export class ConfigValidationError extends Error {}

/**
 * Builds the typed config of an app from the environment, once, at boot. Fails fast with a message
 * naming every bad variable (never its value: some are secrets).
 */
export function loadConfig<T extends object>(cls: new () => T, env: Record<string, string | undefined> = process.env): T {
  // Only the declared variables are config; the rest of the environment is ignored.
  const declared = new Set(
    getMetadataStorage()
      .getTargetValidationMetadatas(cls, '', true, false)
      .map((m) => m.propertyName),
  );
  const defined = Object.fromEntries(Object.entries(env).filter(([k, v]) => v !== undefined && declared.has(k)));
  const config = plainToInstance(cls, defined, { enableImplicitConversion: true, exposeDefaultValues: true });
  const errors = validateSync(config, { forbidUnknownValues: false });
  if (errors.length > 0) {
    const lines = errors.map((e) => `  ${e.property}: ${Object.values(e.constraints ?? {}).join('; ')}`);
    throw new ConfigValidationError(`Invalid configuration:\n${lines.join('\n')}`);
  }
  return config;
}

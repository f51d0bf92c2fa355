import type { DynamicModule } from '@nestjs/common';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { type AppOptions, createApp, startApp } from './bootstrap';
import { type BaseConfig, loadConfig } from './config';
import { InternalListenerConfig, internalListenerAddress } from './internal-listener';
import type { Logger } from './logger';

/**
 * Everything needed to boot one app: its name, config class, root module and bootstrap options.
 * `main.ts` starts it from the environment; tests boot the very same definition with their own env.
 */
export interface AppDefinition<C extends BaseConfig = BaseConfig> {
  service: string;
  Config: new () => C;
  module(config: C): DynamicModule;
  options?(config: C): Omit<AppOptions, 'service' | 'config'>;
}

export interface BootOptions {
  env?: Record<string, string | undefined>;
  logger?: Logger;
}

export async function bootApp<C extends BaseConfig>(
  def: AppDefinition<C>,
  boot: BootOptions = {},
): Promise<{ app: NestFastifyApplication; config: C }> {
  const env = boot.env ?? process.env;
  const config = loadConfig(def.Config, env);
  const app = await createApp(def.module(config), {
    ...def.options?.(config),
    internalListener: internalListenerAddress(loadConfig(InternalListenerConfig, env), config.PORT),
    service: def.service,
    config,
    logger: boot.logger,
  });
  return { app, config };
}

export function startDefinedApp<C extends BaseConfig>(def: AppDefinition<C>): Promise<NestFastifyApplication> {
  const config = loadConfig(def.Config);
  return startApp(def.module(config), {
    ...def.options?.(config),
    internalListener: internalListenerAddress(loadConfig(InternalListenerConfig), config.PORT),
    service: def.service,
    config,
  });
}

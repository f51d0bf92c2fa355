import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { AddressInfo } from 'node:net';
import { type AppDefinition, type BaseConfig, type Logger, bootApp } from '@mm/platform';

export interface RunningApp<C extends BaseConfig = BaseConfig> {
  app: NestFastifyApplication;
  config: C;
  /** base URL when listening (`http://127.0.0.1:<port>`) */
  url: string;
  close(): Promise<void>;
}

/** Boots an app definition with the given env; `listen` binds an ephemeral loopback port. */
export async function boot<C extends BaseConfig>(
  def: AppDefinition<C>,
  env: Record<string, string | undefined>,
  options: { listen?: boolean; logger?: Logger } = {},
): Promise<RunningApp<C>> {
  const { app, config } = await bootApp(def, { env, logger: options.logger });
  let url = '';
  if (options.listen) {
    await app.listen(0, '127.0.0.1');
    const address = app.getHttpServer().address() as AddressInfo;
    url = `http://127.0.0.1:${address.port}`;
  }
  return { app, config, url, close: () => app.close() };
}

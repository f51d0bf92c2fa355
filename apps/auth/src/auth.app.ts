import type { AppDefinition } from '@mm/platform';
import { AuthConfig } from './auth.config';
import { AuthModule } from './auth.module';

export const authApp: AppDefinition<AuthConfig> = {
  service: 'auth',
  Config: AuthConfig,
  module: (config) => AuthModule.forRoot(config),
};

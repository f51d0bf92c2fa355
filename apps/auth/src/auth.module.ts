import { type DynamicModule, Module } from '@nestjs/common';
import { PlatformModule } from '@mm/platform';
import type { AuthConfig } from './auth.config';

@Module({})
export class AuthModule {
  static forRoot(config: AuthConfig): DynamicModule {
    return {
      module: AuthModule,
      imports: [PlatformModule.forRoot({ service: 'auth', config, database: { schema: 'auth' }, redis: true })],
    };
  }
}

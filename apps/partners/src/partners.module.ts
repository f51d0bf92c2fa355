import { type DynamicModule, Module } from '@nestjs/common';
import { PlatformModule } from '@mm/platform';
import type { PartnersConfig } from './partners.config';

@Module({})
export class PartnersModule {
  static forRoot(config: PartnersConfig): DynamicModule {
    return {
      module: PartnersModule,
      imports: [PlatformModule.forRoot({ service: 'partners', config, database: { schema: 'partners' }, redis: true })],
    };
  }
}

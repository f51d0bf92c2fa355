import type { AppDefinition } from '@mm/platform';
import { PartnersConfig } from './partners.config';
import { PartnersModule } from './partners.module';

export const partnersApp: AppDefinition<PartnersConfig> = {
  service: 'partners',
  Config: PartnersConfig,
  module: (config) => PartnersModule.forRoot(config),
};

import { Logger, type Provider } from '@nestjs/common';
import { WebhookDispatcherConfig } from '../webhook-dispatcher.config';
import { SecretCipher, resolveEncryptionKey } from './secret-cipher';

export const secretCipherProvider: Provider = {
  provide: SecretCipher,
  inject: [WebhookDispatcherConfig],
  useFactory: (config: WebhookDispatcherConfig) =>
    new SecretCipher(
      resolveEncryptionKey(config.WEBHOOK_SECRET_ENCRYPTION_KEY, config.NODE_ENV, () =>
        new Logger('SecretCipher').warn(
          'WEBHOOK_SECRET_ENCRYPTION_KEY is not set: using an EPHEMERAL key (development only). Every webhook secret stored now becomes unusable when this process stops.',
        ),
      ),
    ),
};

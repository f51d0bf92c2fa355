import { Logger, type Provider } from '@nestjs/common';
import { WebhookDispatcherConfig } from '../webhook-dispatcher.config';
import { loadOrCreateDevKey } from './dev-key-file';
import { SecretCipher, resolveEncryptionKey } from './secret-cipher';

/** The development key from WEBHOOK_DEV_KEY_FILE, announced: it is not a production setup. */
function developmentKey(config: WebhookDispatcherConfig): Buffer {
  const logger = new Logger('SecretCipher');
  const dev = loadOrCreateDevKey(config.WEBHOOK_DEV_KEY_FILE);
  const fields = { keyFile: dev.path };
  if (dev.created) {
    logger.warn({
      msg: 'WEBHOOK_SECRET_ENCRYPTION_KEY is not set: created a development key file (mode 0600); webhook secrets stored now survive restarts while it stays. Development only: production requires the variable',
      ...fields,
    });
  } else {
    logger.warn({ msg: 'WEBHOOK_SECRET_ENCRYPTION_KEY is not set: using the development key file (development only)', ...fields });
  }
  if (dev.looselyProtected) logger.warn({ msg: 'the development key file is readable by other users: chmod 600 it', ...fields });
  return dev.key;
}

export const secretCipherProvider: Provider = {
  provide: SecretCipher,
  inject: [WebhookDispatcherConfig],
  useFactory: (config: WebhookDispatcherConfig) =>
    new SecretCipher(resolveEncryptionKey(config.WEBHOOK_SECRET_ENCRYPTION_KEY, config.NODE_ENV, () => developmentKey(config))),
};

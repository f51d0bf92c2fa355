import { AppException } from '@mm/errors';

/**
 * An endpoint URL must be absolute http(s), without credentials (they would end up in logs and
 * the attempt log); in production it must be https unless explicitly allowed.
 */
export function validateWebhookUrl(raw: string, requireHttps: boolean): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new AppException('INVALID_WEBHOOK_URL');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new AppException('INVALID_WEBHOOK_URL');
  if (requireHttps && url.protocol !== 'https:') throw new AppException('INVALID_WEBHOOK_URL', 'Webhook URL must use https');
  if (url.username || url.password) throw new AppException('INVALID_WEBHOOK_URL', 'Webhook URL must not carry credentials');
  if (url.hash) throw new AppException('INVALID_WEBHOOK_URL', 'Webhook URL must not carry a fragment');
  return url.toString();
}

/**
 * The `webhooks` queue contract: what a producer (partners) enqueues and the dispatcher delivers.
 * Owned by the webhook-dispatcher service.
 */
export {};

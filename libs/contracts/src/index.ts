export * from './services';
export * from './queues';
export * from './ledger-events';
export * from './webhooks';

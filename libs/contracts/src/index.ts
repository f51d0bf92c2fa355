export * from './services';
export * from './queues';
export * from './ledger-events';
export * from './webhooks';
export * from './directory';
export * from './partners';
export * from './consent';
export * from './identity';

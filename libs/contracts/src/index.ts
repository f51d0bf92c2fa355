export * from './services';
export * from './queues';

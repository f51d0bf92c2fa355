export * from './error-codes';
export * from './app-exception';
export * from './error-body';
export * from './describe-error';
export * from './validation';
export * from './app-exception.filter';

export const AUTH_OPENAPI = { openapi: '3.1.0' } as const;

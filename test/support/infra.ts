/** Where tests find PostgreSQL (admin) and Redis: env, else the local services. */
export const TEST_ADMIN_URL = process.env.TEST_DATABASE_URL ?? process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
export const TEST_REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

/** The migrated template every test file clones, and the prefix of the clones. */
export const TEMPLATE_DB = 'mm_test_template';
export const TEST_DB_PREFIX = 'mm_t_';
export const TEST_REDIS_NAMESPACE = 'mmtest';

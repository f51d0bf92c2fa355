import { Redis } from 'ioredis';

/** Where tests find PostgreSQL (admin) and Redis: env, else the local services. */
export const TEST_ADMIN_URL = process.env.TEST_DATABASE_URL ?? process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
export const TEST_REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

/**
 * Names carry the PID of the process that made them (`mm_t_<pid>_…`, `mmtest:<pid>-…`), so a run
 * removes only what dead runs left behind and never disturbs a run still going on the same machine.
 */
export const TEST_DB_PREFIX = 'mm_t_';
export const TEST_REDIS_NAMESPACE = 'mmtest';
const TEMPLATE_PREFIX = 'mm_tpl_';

/** The migrated template of this run (set by the global setup, read by the workers). */
export function templateDb(): string {
  const name = process.env.MM_TEST_TEMPLATE_DB;
  if (!name) throw new Error('MM_TEST_TEMPLATE_DB is not set: run the tests through jest (global setup)');
  return name;
}

export function newTemplateName(): string {
  return `${TEMPLATE_PREFIX}${process.pid}`;
}

export function isStaleTestDatabase(name: string): boolean {
  const match = /^(?:mm_t_|mm_tpl_)(\d+)/.exec(name);
  return match !== null && !isAlive(Number(match[1]));
}

export function isStaleRedisKey(key: string): boolean {
  const match = new RegExp(`^${TEST_REDIS_NAMESPACE}:(\\d+)-`).exec(key);
  return match === null || !isAlive(Number(match[1]));
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Removes the Redis keys matching the pattern (and the filter): a file's namespace, or dead runs' keys. */
export async function deleteRedisKeys(pattern: string, filter: (key: string) => boolean = () => true): Promise<void> {
  const redis = new Redis(TEST_REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 1 });
  await redis.connect();
  try {
    let cursor = '0';
    do {
      const [next, found] = await redis.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
      const keys = found.filter(filter);
      if (keys.length > 0) await redis.unlink(...keys);
      cursor = next;
    } while (cursor !== '0');
  } finally {
    redis.disconnect();
  }
}

import { SERVICE_NAMES } from '@mm/contracts';
import { DEFAULT_ADMIN_URL, migrateAll } from './db';

/** `npm run migrate`: idempotent; DATABASE_URL is an admin connection (default: local). */
async function main(): Promise<void> {
  const adminUrl = process.env.DATABASE_URL ?? DEFAULT_ADMIN_URL;
  const result = await migrateAll(adminUrl);
  for (const service of SERVICE_NAMES) {
    const ran = result[service];
    process.stdout.write(`migrate ${service}: ${ran.length === 0 ? 'up to date' : `applied ${ran.join(', ')}`}\n`);
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`migrate failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});

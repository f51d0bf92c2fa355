import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { ERROR_CATALOG } from './error-codes';

/** Every section file under codes/, read from the folder so that a new section cannot be left out of this check. */
function sections(): Record<string, unknown>[] {
  const dir = join(__dirname, 'codes');
  return (
    readdirSync(dir)
      .filter((f) => f.endsWith('.ts') && !f.endsWith('.spec.ts'))
      // eslint-disable-next-line @typescript-eslint/no-require-imports -- a folder listing has no static import
      .flatMap((f) => Object.values(require(join(dir, f)) as Record<string, Record<string, unknown>>))
  );
}

describe('error catalogue', () => {
  it('never defines one code in two sections (a later section would silently win)', () => {
    const all = sections().flatMap((s) => Object.keys(s));
    expect(all.length).toBe(new Set(all).size);
    expect(Object.keys(ERROR_CATALOG).length).toBe(all.length);
  });

  it('uses SCREAMING_SNAKE codes and real HTTP error statuses', () => {
    for (const [code, { status }] of Object.entries(ERROR_CATALOG)) {
      expect(code).toMatch(/^[A-Z][A-Z0-9_]*$/);
      expect(status).toBeGreaterThanOrEqual(400);
      expect(status).toBeLessThan(600);
    }
  });

  it('holds the codes the partner API and the money path document, each with its documented status', () => {
    // Statuses as the docs give them: for the partner API in docs/partners.md "7. All error codes"; for the
    // money path in docs/ledger.md "Locks, isolation and retries", "Idempotency", "Rules the database enforces"
    // and docs/mobile-api.md "Who starts what", "Create", "confirm".
    const expected: Record<string, number> = {
      INVALID_INTEGRATION_CREDENTIALS: 401,
      INTEGRATION_REVOKED: 401,
      NO_ACTIVE_CONNECTION: 403,
      MISSING_SCOPE: 403,
      VALIDATION_ERROR: 400,
      INVALID_PHONE_FORMAT: 400,
      INVALID_AMOUNT: 400,
      INVALID_TTL: 400,
      TTL_TOO_LONG: 400,
      CONFLICT: 409,
      CONNECTION_NOT_FOUND: 404,
      INSUFFICIENT_BALANCE: 422,
      CONCURRENCY_CONFLICT: 409,
      IDEMPOTENCY_KEY_CONFLICT: 422,
      IDEMPOTENCY_KEY_MISSING: 400,
      LEDGER_INTEGRITY_VIOLATION: 500,
      INVALID_INTENT_TRANSITION: 400,
      INTENT_NOT_FOUND: 404,
    };
    for (const [code, status] of Object.entries(expected)) {
      expect(ERROR_CATALOG[code as keyof typeof ERROR_CATALOG]?.status).toBe(status);
    }
  });
});

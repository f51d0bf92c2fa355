import { AppException } from '@mm/errors';
import { isIsoInstant, isUuid } from '@mm/platform';

/** Position in a list ordered by (created_at DESC, id DESC): the last row of the previous page. */
export interface Cursor {
  createdAt: Date;
  id: string;
}

/** Opaque to clients: base64url of `<ISO time>|<id>`. */
export function encodeCursor(row: { created_at: Date; id: string }): string {
  return Buffer.from(`${row.created_at.toISOString()}|${row.id}`).toString('base64url');
}

export function decodeCursor(raw: string | undefined): Cursor | undefined {
  if (raw === undefined || raw === '') return undefined;
  const [at, id, extra] = Buffer.from(raw, 'base64url').toString('utf8').split('|');
  const createdAt = new Date(at ?? '');
  if (extra !== undefined || !isUuid(id) || !isIsoInstant(at)) {
    throw new AppException('VALIDATION_ERROR', 'cursor is not a cursor this API returned', {
      errors: [{ field: 'cursor', code: 'INVALID_CURSOR', message: 'cursor is not a cursor this API returned' }],
    });
  }
  return { createdAt, id };
}

/**
 * Keyset pagination over rows fetched with `limit + 1`: returns the page and the cursor of the
 * next one (null on the last page).
 */
export function pageOf<R extends { created_at: Date; id: string }, T>(rows: R[], limit: number, view: (row: R) => T) {
  const more = rows.length > limit;
  const page = more ? rows.slice(0, limit) : rows;
  return { data: page.map(view), nextCursor: more ? encodeCursor(page[page.length - 1]) : null };
}

/** `AND (created_at, id) < ($n, $n+1)` when a cursor is given; pushes its parameters. */
export function cursorClause(cursor: Cursor | undefined, params: unknown[], alias = ''): string {
  if (!cursor) return '';
  params.push(cursor.createdAt, cursor.id);
  const p = alias ? `${alias}.` : '';
  return ` AND (${p}created_at, ${p}id) < ($${params.length - 1}::timestamptz, $${params.length}::uuid)`;
}

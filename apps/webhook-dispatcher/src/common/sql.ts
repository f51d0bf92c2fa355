/**
 * Rows of a raw TypeORM query. For UPDATE and DELETE the postgres driver answers `[rows, rowCount]`
 * instead of the rows; this evens that out so `… RETURNING` reads the same everywhere.
 */
export async function rowsOf<T>(result: Promise<unknown>): Promise<T[]> {
  const raw = await result;
  if (Array.isArray(raw) && raw.length === 2 && Array.isArray(raw[0]) && typeof raw[1] === 'number') return raw[0] as T[];
  return raw as T[];
}

/**
 * Rejects when `promise` has not settled within `ms` (the timer is cleared either way). For
 * best-effort Redis or queue calls: a connection fails fast while its server is unreachable, but a
 * server that accepts and never answers would otherwise hold a request (and any row lock it has
 * taken) for as long as it likes.
 */
export function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not answer within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

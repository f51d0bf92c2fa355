/**
 * Rejects when `promise` has not settled within `ms`. For best-effort Redis calls: the connection
 * fails fast while Redis is unreachable, but a server that accepts and never answers would
 * otherwise hold a request (and, in a refresh, a row lock) for as long as it likes.
 */
export function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not answer within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

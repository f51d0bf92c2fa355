import type { Logger } from '@nestjs/common';

/**
 * A connection's 'error' listener that logs at most one warning per `everyMs` (30 s by default):
 * while a server stays away its client reports every reconnect attempt, and one line per interval
 * says as much. Listening at all matters: an 'error' event nobody listens to ends the process.
 */
export function throttledWarning(logger: Logger, msg: string, everyMs = 30_000): (error: Error) => void {
  let last: number | undefined;
  return (error: Error) => {
    const now = Date.now();
    if (last !== undefined && now - last <= everyMs) return;
    last = now;
    logger.warn({ msg, err: { message: error.message } });
  };
}

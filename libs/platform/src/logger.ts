import type { LoggerService } from '@nestjs/common';
import pino, { type Logger } from 'pino';
import { currentContext } from './request-context';

export type { Logger } from 'pino';

/** Header and body paths that must never reach a log line (PIN, OTP, keys, tokens). */
const REDACT = [
  'req.headers.authorization',
  'req.headers["x-service-key"]',
  'req.headers.cookie',
  '*.pin',
  '*.oldPin',
  '*.newPin',
  '*.otp',
  '*.otpCode',
  '*.token',
  '*.refreshToken',
  '*.apiKey',
  '*.secret',
  '*.password',
];

export interface LoggerOptions {
  service: string;
  level: string;
  pretty?: boolean;
  /** test hook: where lines go (defaults to stdout) */
  destination?: pino.DestinationStream;
}

export function createLogger(options: LoggerOptions): Logger {
  const base: pino.LoggerOptions = {
    level: options.level,
    base: { service: options.service },
    timestamp: pino.stdTimeFunctions.isoTime,
    redact: { paths: REDACT, censor: '[redacted]' },
    // Every line written while a request is being served carries its ids.
    mixin() {
      const ctx = currentContext();
      return ctx ? { requestId: ctx.requestId, correlationId: ctx.correlationId } : {};
    },
  };
  if (options.destination) return pino(base, options.destination);
  if (options.pretty) {
    return pino({
      ...base,
      transport: { target: 'pino-pretty', options: { singleLine: true, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname' } },
    });
  }
  // Synchronous writes to stdout. pino's default stream writes asynchronously, and at
  // process.exit its synchronous flush of the queued lines overtakes a write still in flight: the
  // last request lines of a graceful shutdown came out after "stopped" (test/e2e/graceful-shutdown
  // caught it under load), and a line not yet handed to the kernel could be lost. One write per
  // line costs about a microsecond more than the queue.
  return pino(base, pino.destination({ dest: 1, sync: true }));
}

/**
 * Nest's logger interface on top of pino, so framework and application lines share one format.
 * Nest's `Logger` appends its context as the last argument: `warn(message, ...params, context)`.
 * Both `logger.warn('text')` and `logger.warn({ fields }, 'text')` end up as one pino line.
 */
export class PinoNestLogger implements LoggerService {
  constructor(private readonly logger: Logger) {}

  log(message: unknown, ...params: unknown[]): void {
    this.write('info', message, params);
  }
  warn(message: unknown, ...params: unknown[]): void {
    this.write('warn', message, params);
  }
  debug(message: unknown, ...params: unknown[]): void {
    this.write('debug', message, params);
  }
  verbose(message: unknown, ...params: unknown[]): void {
    this.write('trace', message, params);
  }
  fatal(message: unknown, ...params: unknown[]): void {
    this.write('fatal', message, params);
  }
  /** `error(message, stack?, context?)`, or `error(err | fields, 'text'?, context?)` */
  error(message: unknown, ...params: unknown[]): void {
    this.write('error', message, params);
  }

  private write(level: pino.Level, message: unknown, params: unknown[]): void {
    const context = params.length > 0 && typeof params[params.length - 1] === 'string' ? (params[params.length - 1] as string) : undefined;
    const rest = context === undefined ? params : params.slice(0, -1);
    const text = rest.find((p): p is string => typeof p === 'string');
    if (message instanceof Error) {
      this.logger[level]({ context, err: message }, text ?? message.message);
    } else if (typeof message === 'object' && message !== null) {
      this.logger[level]({ context, ...(message as Record<string, unknown>) }, text);
    } else if (level === 'error' && text !== undefined && /\n\s+at /.test(text)) {
      // Nest's `error(message, stack)`
      this.logger.error({ context, stack: text }, String(message));
    } else {
      this.logger[level]({ context }, String(message));
    }
  }
}

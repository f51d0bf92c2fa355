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
  return pino(base);
}

/** Nest's logger interface on top of pino, so framework and application lines share one format. */
export class PinoNestLogger implements LoggerService {
  constructor(private readonly logger: Logger) {}

  log(message: unknown, context?: string): void {
    this.write('info', message, context);
  }
  error(message: unknown, stackOrContext?: string, context?: string): void {
    const err = message instanceof Error ? message : undefined;
    this.logger.error({ context: context ?? stackOrContext, err }, err ? err.message : String(message));
  }
  warn(message: unknown, context?: string): void {
    this.write('warn', message, context);
  }
  debug(message: unknown, context?: string): void {
    this.write('debug', message, context);
  }
  verbose(message: unknown, context?: string): void {
    this.write('trace', message, context);
  }
  fatal(message: unknown, context?: string): void {
    this.write('fatal', message, context);
  }

  private write(level: pino.Level, message: unknown, context?: string): void {
    if (typeof message === 'object' && message !== null) this.logger[level]({ context, ...message });
    else this.logger[level]({ context }, String(message));
  }
}

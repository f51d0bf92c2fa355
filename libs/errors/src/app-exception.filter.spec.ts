import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppException } from './app-exception';
import { sendError } from './app-exception.filter';

/** A request whose logger records its lines, and a reply that records what is sent. */
function exchange() {
  const lines: { level: string; fields: Record<string, unknown>; msg: string }[] = [];
  const log = (level: string) => (fields: Record<string, unknown>, msg: string) => lines.push({ level, fields, msg });
  const request = { id: 'req-1', log: { error: log('error'), warn: log('warn') } } as unknown as FastifyRequest;
  const sent: { status?: number; body?: unknown } = {};
  const reply = {
    sent: false,
    headers: () => reply,
    status: (s: number) => ((sent.status = s), reply),
    type: () => reply,
    send: (b: unknown) => ((sent.body = b), reply),
  } as unknown as FastifyReply;
  return { request, reply, lines, sent };
}

describe('sendError', () => {
  it("logs an upstream failure as a warning with its cause's code, and sends only the stable body", () => {
    const { request, reply, lines, sent } = exchange();
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:3003'), { code: 'ECONNREFUSED' });
    sendError(request, reply, new AppException('UPSTREAM_UNAVAILABLE', 'ledger is unavailable', { cause: refused }));
    expect(lines).toEqual([
      {
        level: 'warn',
        msg: 'backing service unavailable',
        fields: {
          err: { code: 'UPSTREAM_UNAVAILABLE', message: 'ledger is unavailable' },
          cause: { code: 'ECONNREFUSED', message: 'connect ECONNREFUSED 127.0.0.1:3003' },
        },
      },
    ]);
    expect(sent).toEqual({ status: 502, body: { code: 'UPSTREAM_UNAVAILABLE', message: 'ledger is unavailable', requestId: 'req-1' } });
  });

  it("logs a pool checkout timeout as this process's pool exhausted, with its holders, and answers 503", () => {
    const { request, reply, lines, sent } = exchange();
    const pool = { exhausted: true, max: 2, inUse: 2, idle: 0, waiting: 3, holders: [{ heldMs: 5003 }, { heldMs: 5001 }] };
    const message = "timeout exceeded when trying to connect: all 2 connections of this process's pool stayed checked out";
    sendError(request, reply, Object.assign(new Error(message), { pool }));
    expect(lines).toEqual([{ level: 'warn', msg: 'database connection pool exhausted', fields: { err: { message }, pool } }]);
    expect(sent).toEqual({
      status: 503,
      body: { code: 'SERVICE_UNAVAILABLE', message: 'The service is temporarily unavailable', requestId: 'req-1' },
    });
  });

  it('logs nothing for a business error', () => {
    const { request, reply, lines, sent } = exchange();
    sendError(request, reply, new AppException('INSUFFICIENT_BALANCE'));
    expect(lines).toEqual([]);
    expect(sent.status).toBe(422);
  });
});

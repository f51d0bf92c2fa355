import type { FastifyRequest } from 'fastify';

/** What the end client's request tells about it: kept on intent events and used by risk. */
export interface ClientInfo {
  ip?: string;
  userAgent?: string;
  /** the app's device identifier (`X-Device-Id`), for the per-device velocity rule */
  deviceId?: string;
  /** tests only, when fault injection is on: `X-Payments-Fault` */
  fault?: string;
  /** tests only: drops the client's connection without an answer, as a process killed at that point would */
  crash?: () => void;
}

export function clientInfo(request: FastifyRequest): ClientInfo {
  const header = (name: string): string | undefined => {
    const value = request.headers[name];
    const first = Array.isArray(value) ? value[0] : value;
    return first ? first.slice(0, 200) : undefined;
  };
  return {
    ip: request.ip,
    userAgent: header('user-agent')?.slice(0, 200),
    deviceId: header('x-device-id')?.slice(0, 128),
    fault: header('x-payments-fault'),
    crash: () => request.raw.socket?.destroy(),
  };
}

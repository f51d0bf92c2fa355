/**
 * How many processes `npm start` runs per service, and where each listens (docs/operations.md,
 * "Several replicas on one machine"). Kept apart from start.ts, which starts things when imported,
 * so that tests and benchmarks can compute the same layout.
 *
 * - MM_REPLICAS (1 to 9, default 1) for every service; MM_REPLICAS_<SERVICE> (ORCHESTRATOR, AUTH,
 *   PARTNERS, LEDGER_WALLETS, WEBHOOK_DISPATCHER) for one of them.
 * - Replica r (from 0) of a service other than the orchestrator listens on its usual port + 10 r.
 * - The orchestrator's replicas share the public port and the internal one (+100): start.ts holds
 *   both sockets as the cluster primary and hands each connection to one of them.
 */
import { SERVICES, SERVICE_NAMES, type ServiceName } from '@mm/contracts';

export const MAX_REPLICAS = 9;
/** between a replica's port and the next replica's: the five services fit in between */
export const REPLICA_PORT_STEP = 10;
/** the orchestrator's internal listener (metrics, /api/internal/*): its public port + 100 */
export const INTERNAL_PORT_OFFSET = 100;

export type ReplicaCounts = Record<ServiceName, number>;

export class ReplicaConfigError extends Error {}

/** MM_REPLICAS_LEDGER_WALLETS for ledger-wallets. */
export function replicasVariable(service: ServiceName): string {
  return `MM_REPLICAS_${service.toUpperCase().replace(/-/g, '_')}`;
}

function count(name: string, raw: string): number {
  const n = Number(raw);
  if (!/^\s*\d+\s*$/.test(raw) || !Number.isInteger(n) || n < 1 || n > MAX_REPLICAS)
    throw new ReplicaConfigError(`${name} must be a whole number from 1 to ${MAX_REPLICAS} (got "${raw}")`);
  return n;
}

/** The replica count of each service; a bad value, or a variable naming no service, is refused. */
export function replicaCounts(env: NodeJS.ProcessEnv = process.env): ReplicaCounts {
  const all = env.MM_REPLICAS === undefined || env.MM_REPLICAS === '' ? 1 : count('MM_REPLICAS', env.MM_REPLICAS);
  const known = new Set(SERVICE_NAMES.map(replicasVariable));
  const unknown = Object.keys(env).filter((k) => k.startsWith('MM_REPLICAS_') && !known.has(k));
  if (unknown.length > 0) throw new ReplicaConfigError(`${unknown.join(', ')} names no service: use one of ${[...known].join(', ')}`);
  return Object.fromEntries(
    SERVICE_NAMES.map((service) => {
      const raw = env[replicasVariable(service)];
      return [service, raw === undefined || raw === '' ? all : count(replicasVariable(service), raw)];
    }),
  ) as ReplicaCounts;
}

/** The service's usual port on this base (base 3000: auth 3001, ledger-wallets 3003). */
export function portOf(service: ServiceName, base: number): number {
  return base + SERVICES[service].port - SERVICES.orchestrator.port;
}

/** Where replica r listens; every orchestrator replica shares the public port. */
export function replicaPort(service: ServiceName, base: number, replica: number): number {
  return portOf(service, base) + (service === 'orchestrator' ? 0 : REPLICA_PORT_STEP * replica);
}

export interface LayoutPort {
  port: number;
  service: ServiceName;
  replica: number;
}

/** Every port a layout listens on, with what listens there (for the free-port check). */
export function layoutPorts(base: number, counts: ReplicaCounts): LayoutPort[] {
  const ports = SERVICE_NAMES.flatMap((service): LayoutPort[] =>
    service === 'orchestrator'
      ? [{ port: portOf(service, base), service, replica: 0 }]
      : Array.from({ length: counts[service] }, (_, replica) => ({ port: replicaPort(service, base, replica), service, replica })),
  );
  const internal: LayoutPort = { port: portOf('orchestrator', base) + INTERNAL_PORT_OFFSET, service: 'orchestrator', replica: 0 };
  return [...ports, internal];
}

/**
 * What a caller puts in its variable for a service (AUTH_URL, LEDGER_URL…): one loopback URL per
 * replica, comma-separated; a single URL when there is one replica, as before.
 */
export function serviceUrls(service: ServiceName, base: number, counts: ReplicaCounts): string {
  const n = service === 'orchestrator' ? 1 : counts[service];
  return Array.from({ length: n }, (_, r) => `http://127.0.0.1:${replicaPort(service, base, r)}`).join(',');
}

/** The orchestrator's internal listener, shared by its replicas like the public port. */
export function orchestratorInternalUrl(base: number): string {
  return `http://127.0.0.1:${portOf('orchestrator', base) + INTERNAL_PORT_OFFSET}`;
}

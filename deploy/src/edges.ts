import { APPS, type AppName } from './apps';
import { POSTGRES_PORT, REDIS_PORT } from './network';

/**
 * Every connection the platform opens between its own parts, in docker-compose.yml's names (the
 * pooler of the Kubernetes deployment is `postgres` there). The NetworkPolicies are built from the
 * same `APPS` table; docker-compose.yml has one network per edge below (tools/compose-file.spec.ts),
 * and `npm run test:compose` reads this list to decide what each container may reach.
 */
export type Party = AppName | 'migrate' | 'postgres' | 'redis';

export interface Edge {
  from: Party;
  to: Party;
  port: number;
}

export function platformEdges(): Edge[] {
  return [
    ...APPS.flatMap((callee) => callee.callers.map((c) => ({ from: c.from, to: callee.name, port: c.port }))),
    ...APPS.flatMap((app): Edge[] => [
      { from: app.name, to: 'postgres', port: POSTGRES_PORT },
      { from: app.name, to: 'redis', port: REDIS_PORT },
    ]),
    { from: 'migrate', to: 'postgres', port: POSTGRES_PORT },
  ];
}

/** The apps that open connections outside (SMS provider, alert webhooks, partners' endpoints). */
export function egressApps(): AppName[] {
  return APPS.filter((app) => app.egress).map((app) => app.name);
}

/** The compose network that carries one edge (both ways: a compose network has no direction). */
export const linkNetwork = (from: Party, to: Party): string => `${from}-to-${to}`;
/** The compose network that gives one app its route outside. */
export const outsideNetwork = (app: AppName): string => `${app}-out`;

/**
 * The five services: the schema and database role each one owns, and its default local port.
 * Tools (migrate, start, tests) and apps read this one table.
 */
export const SERVICES = {
  orchestrator: { schema: 'orchestrator', role: 'svc_orchestrator', port: 3000 },
  auth: { schema: 'auth', role: 'svc_auth', port: 3001 },
  partners: { schema: 'partners', role: 'svc_partners', port: 3002 },
  'ledger-wallets': { schema: 'ledger', role: 'svc_ledger', port: 3003 },
  'webhook-dispatcher': { schema: 'webhooks', role: 'svc_webhooks', port: 3004 },
} as const;

export type ServiceName = keyof typeof SERVICES;

export const SERVICE_NAMES = Object.keys(SERVICES) as ServiceName[];

/** Local development database (trust auth on loopback). */
export const DEFAULT_DATABASE_NAME = 'mobile_money';

/** The URL an app uses locally: same server and database as the admin URL, its own role. */
export function serviceDatabaseUrl(adminUrl: string, service: ServiceName, password?: string): string {
  const url = new URL(adminUrl);
  url.username = SERVICES[service].role;
  url.password = password ?? '';
  return url.toString();
}

export const SUPPORTED_CURRENCIES = ['XAF', 'XOF'] as const;
export type Currency = (typeof SUPPORTED_CURRENCIES)[number];

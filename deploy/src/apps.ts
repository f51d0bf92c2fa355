import { SERVICES } from '../../libs/contracts/src/services';

export type AppName = keyof typeof SERVICES;

export interface AppShape {
  /** the compose service and the Kubernetes Service/Deployment name (same host names as compose) */
  name: AppName;
  port: number;
  /** the orchestrator's second listener: internal routes and metrics, never exposed */
  internalPort?: number;
  command: string[];
  /** which apps call this one, on which of its ports (read from the apps' *_URL settings) */
  callers: { from: AppName; port: number }[];
  /** compose gives it an `<app>-out` network: it may open connections outside the cluster */
  egress: boolean;
  /** reachable from the ingress controller (the Internet) */
  public: boolean;
}

const main = (app: AppName): string[] => ['node', `dist/apps/${app}/src/main.js`];

/**
 * Who calls whom, as the configuration says: the orchestrator's AUTH_URL, PARTNERS_URL, LEDGER_URL and
 * WEBHOOK_DISPATCHER_URL; partners' ORCHESTRATOR_URL (the internal listener) and WEBHOOK_DISPATCHER_URL;
 * the ledger's AUTH_URL (auth's key set). Nothing calls the dispatcher's or auth's clients back.
 */
export const APPS: AppShape[] = [
  {
    name: 'orchestrator',
    port: SERVICES.orchestrator.port,
    internalPort: SERVICES.orchestrator.port + 100,
    command: main('orchestrator'),
    callers: [{ from: 'partners', port: SERVICES.orchestrator.port + 100 }],
    egress: true,
    public: true,
  },
  {
    name: 'auth',
    port: SERVICES.auth.port,
    command: main('auth'),
    callers: [
      { from: 'orchestrator', port: SERVICES.auth.port },
      { from: 'ledger-wallets', port: SERVICES.auth.port },
    ],
    egress: true,
    public: false,
  },
  {
    name: 'partners',
    port: SERVICES.partners.port,
    command: main('partners'),
    callers: [{ from: 'orchestrator', port: SERVICES.partners.port }],
    egress: false,
    public: false,
  },
  {
    name: 'ledger-wallets',
    port: SERVICES['ledger-wallets'].port,
    command: main('ledger-wallets'),
    callers: [{ from: 'orchestrator', port: SERVICES['ledger-wallets'].port }],
    egress: true,
    public: false,
  },
  {
    name: 'webhook-dispatcher',
    port: SERVICES['webhook-dispatcher'].port,
    command: main('webhook-dispatcher'),
    callers: [
      { from: 'orchestrator', port: SERVICES['webhook-dispatcher'].port },
      { from: 'partners', port: SERVICES['webhook-dispatcher'].port },
    ],
    egress: true,
    public: false,
  },
];

export const LABEL_NAME = 'app.kubernetes.io/name';
export const PART_OF = { 'app.kubernetes.io/part-of': 'cemac-mobile-money' };

export function labelsOf(name: string, component: string): Record<string, string> {
  return { [LABEL_NAME]: name, 'app.kubernetes.io/component': component, ...PART_OF };
}

export const secretNameOf = (owner: string): string => `${owner}-secrets`;
export const configMapNameOf = (app: string): string => `${app}-config`;

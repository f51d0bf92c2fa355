import {
  NetworkPolicy,
  type INetworkPolicyEgressRule,
  type INetworkPolicyIngressRule,
  type INetworkPolicyPeer,
  type INetworkPolicyPort,
} from 'kubernetes-models/networking.k8s.io/v1';
import type { Values } from '../values';
import { APPS, type AppName, LABEL_NAME, PART_OF } from './apps';

/**
 * The compose networks, as NetworkPolicies. Both come from one table (`APPS`, listed as edges in
 * edges.ts): compose has a network per edge, which cannot say a direction or a port; here a caller
 * reaches a callee only on the port its *_URL setting points at, the databases only from the pods
 * that use them, and only the apps compose gives an `<app>-out` network leave the cluster. Everything
 * else is refused by the default-deny policy; DNS is allowed.
 */
export const POSTGRES_PORT = 5432;
export const REDIS_PORT = 6379;
/** CloudNativePG's instance manager: the operator and the other instances call it */
export const CNPG_STATUS_PORT = 8000;

export function selectors(values: Values) {
  return {
    app: (name: AppName | 'migrate' | 'redis') => ({ [LABEL_NAME]: name }),
    postgresInstances: { 'cnpg.io/cluster': values.postgres.clusterName, 'cnpg.io/podRole': 'instance' },
    pooler: { 'cnpg.io/poolerName': values.postgres.poolerName },
  };
}

const tcp = (...ports: number[]): INetworkPolicyPort[] => ports.map((port) => ({ protocol: 'TCP', port }));
const pods = (matchLabels: Record<string, string>): INetworkPolicyPeer => ({ podSelector: { matchLabels } });
const namespace = (name: string): INetworkPolicyPeer => ({ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': name } } });

export function networkPolicies(values: Values): NetworkPolicy[] {
  const sel = selectors(values);
  /** a policy listing only ingress rules restricts only ingress, and likewise for egress */
  const policy = (
    name: string,
    podSelector: Record<string, string>,
    rules: { ingress?: INetworkPolicyIngressRule[]; egress?: INetworkPolicyEgressRule[] },
  ) =>
    new NetworkPolicy({
      metadata: { name, namespace: values.namespace, labels: { ...PART_OF } },
      spec: {
        podSelector: { matchLabels: podSelector },
        policyTypes: [...(rules.ingress ? (['Ingress'] as const) : []), ...(rules.egress ? (['Egress'] as const) : [])],
        ...(rules.ingress ? { ingress: rules.ingress } : {}),
        ...(rules.egress ? { egress: rules.egress } : {}),
      },
    });
  const out: NetworkPolicy[] = [
    new NetworkPolicy({
      metadata: { name: 'default-deny', namespace: values.namespace, labels: { ...PART_OF } },
      spec: { podSelector: {}, policyTypes: ['Ingress', 'Egress'] },
    }),
    new NetworkPolicy({
      metadata: { name: 'allow-dns', namespace: values.namespace, labels: { ...PART_OF } },
      spec: {
        podSelector: {},
        policyTypes: ['Egress'],
        egress: [
          {
            to: [{ ...namespace('kube-system'), podSelector: { matchLabels: { 'k8s-app': 'kube-dns' } } }],
            ports: [
              { protocol: 'UDP', port: 53 },
              { protocol: 'TCP', port: 53 },
            ],
          },
        ],
      },
    }),
  ];
  const outside = { ipBlock: { cidr: '0.0.0.0/0', except: values.network.publicExcept } };
  // "anywhere" must not include the cluster's own pods (an ipBlock matches pod addresses too)
  const backupCidr = values.postgres.backup.egressCidr;
  const backupStore = backupCidr === '0.0.0.0/0' ? outside : { ipBlock: { cidr: backupCidr } };

  for (const app of APPS) {
    const ingress: INetworkPolicyIngressRule[] = app.callers.map((c) => ({ from: [pods(sel.app(c.from))], ports: tcp(c.port) }));
    if (app.public) ingress.push({ from: [namespace(values.ingress.controllerNamespace)], ports: tcp(app.port) });
    out.push(policy(`${app.name}-ingress`, sel.app(app.name), { ingress }));

    const callees = APPS.flatMap((callee) =>
      callee.callers.filter((c) => c.from === app.name).map((c) => ({ to: [pods(sel.app(callee.name))], ports: tcp(c.port) })),
    );
    const egress: INetworkPolicyEgressRule[] = [
      ...callees,
      { to: [pods(sel.pooler)], ports: tcp(POSTGRES_PORT) },
      { to: [pods(sel.app('redis'))], ports: tcp(REDIS_PORT) },
    ];
    // compose's `egress` network: the SMS provider, alert webhooks, partners' endpoints (any port, public addresses only)
    if (app.egress) egress.push({ to: [outside] });
    out.push(policy(`${app.name}-egress`, sel.app(app.name), { egress }));
  }

  const appPeers = APPS.map((a) => pods(sel.app(a.name)));
  out.push(
    policy('redis', sel.app('redis'), { ingress: [{ from: appPeers, ports: tcp(REDIS_PORT) }], egress: [] }),
    policy('migrate', sel.app('migrate'), { egress: [{ to: [pods(sel.postgresInstances)], ports: tcp(POSTGRES_PORT) }] }),
    policy('postgres-pooler', sel.pooler, {
      ingress: [{ from: appPeers, ports: tcp(POSTGRES_PORT) }],
      egress: [
        { to: [pods(sel.postgresInstances)], ports: tcp(POSTGRES_PORT) },
        { to: [{ ipBlock: { cidr: values.network.apiServer.cidr } }], ports: tcp(...values.network.apiServer.ports) },
      ],
    }),
    policy('postgres-instances', sel.postgresInstances, {
      ingress: [
        { from: [pods(sel.pooler), pods(sel.app('migrate'))], ports: tcp(POSTGRES_PORT) },
        { from: [pods(sel.postgresInstances)], ports: tcp(POSTGRES_PORT, CNPG_STATUS_PORT) },
        { from: [namespace(values.network.cnpgOperatorNamespace)], ports: tcp(POSTGRES_PORT, CNPG_STATUS_PORT) },
      ],
      egress: [
        { to: [pods(sel.postgresInstances)], ports: tcp(POSTGRES_PORT, CNPG_STATUS_PORT) },
        { to: [{ ipBlock: { cidr: values.network.apiServer.cidr } }], ports: tcp(...values.network.apiServer.ports) },
        // base backups and the WAL archive (the Barman Cloud plugin's sidecar) go to object storage over HTTPS
        { to: [backupStore], ports: tcp(443) },
      ],
    }),
  );
  return out;
}

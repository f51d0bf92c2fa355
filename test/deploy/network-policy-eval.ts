import type { Values } from '../../deploy/values';

/**
 * A small model of NetworkPolicy semantics (Kubernetes networking.k8s.io/v1) to list which connections
 * the rendered policies allow between the pods of the deployment and a few outside parties. A
 * connection is allowed when the source's egress policies and the destination's ingress policies both
 * allow it (a pod no policy of that direction selects is open in that direction). Kubelet probes are
 * not modelled (CNIs let the node reach its pods).
 */
interface Party {
  id: string;
  namespace?: string;
  labels?: Record<string, string>;
  ip?: string;
}
type Peer = {
  podSelector?: { matchLabels?: Record<string, string> };
  namespaceSelector?: { matchLabels?: Record<string, string> };
  ipBlock?: { cidr: string; except?: string[] };
};
type Port = { protocol?: string; port?: number | string };
type Rule = { from?: Peer[]; to?: Peer[]; ports?: Port[] };
type Policy = {
  metadata: { namespace: string };
  spec: { podSelector: { matchLabels?: Record<string, string> }; policyTypes: string[]; ingress?: Rule[]; egress?: Rule[] };
};

const PORTS = [
  ...[3000, 3001, 3002, 3003, 3004, 3100, 5432, 6379, 8000, 443, 6443, 9999, 53].map((port) => ({ protocol: 'TCP', port })),
  { protocol: 'UDP', port: 53 },
];
/** the ports each pair is tried on, as the edges name them */
export const PROBED_PORTS = PORTS.map((p) => `${p.protocol.toLowerCase()}/${p.port}`);

function parties(values: Values): Party[] {
  const ns = values.namespace;
  const cluster = values.postgres.clusterName;
  return [
    ...['orchestrator', 'auth', 'partners', 'ledger-wallets', 'webhook-dispatcher', 'migrate', 'redis'].map((name, i) => ({
      id: name,
      namespace: ns,
      labels: { 'app.kubernetes.io/name': name, 'app.kubernetes.io/part-of': 'cemac-mobile-money' },
      ip: `10.244.0.${i + 10}`,
    })),
    // the labels CloudNativePG puts on its pods
    {
      id: 'pooler',
      namespace: ns,
      labels: { 'cnpg.io/cluster': cluster, 'cnpg.io/poolerName': values.postgres.poolerName, 'cnpg.io/podRole': 'pooler' },
      ip: '10.244.0.30',
    },
    {
      id: 'postgres',
      namespace: ns,
      labels: { 'cnpg.io/cluster': cluster, 'cnpg.io/podRole': 'instance', 'cnpg.io/instanceRole': 'primary' },
      ip: '10.244.0.31',
    },
    {
      id: 'ingress-controller',
      namespace: values.ingress.controllerNamespace,
      labels: { 'app.kubernetes.io/name': 'ingress-nginx' },
      ip: '10.244.1.1',
    },
    {
      id: 'cnpg-operator',
      namespace: values.network.cnpgOperatorNamespace,
      labels: { 'app.kubernetes.io/name': 'cloudnative-pg' },
      ip: '10.244.1.2',
    },
    { id: 'kube-dns', namespace: 'kube-system', labels: { 'k8s-app': 'kube-dns' }, ip: '10.244.1.3' },
    { id: 'api-server', ip: values.network.apiServer.cidr.split('/')[0] },
    { id: 'internet', ip: '203.0.113.10' },
  ];
}

const matches = (selector: Record<string, string> | undefined, labels: Record<string, string> | undefined): boolean =>
  Object.entries(selector ?? {}).every(([k, v]) => labels?.[k] === v);

function toInt(ip: string): number {
  return ip.split('.').reduce((n, octet) => n * 256 + Number(octet), 0);
}
function inCidr(ip: string, cidr: string): boolean {
  const [base, bits] = cidr.split('/');
  const size = 2 ** (32 - Number(bits));
  return Math.floor(toInt(ip) / size) === Math.floor(toInt(base) / size);
}

function peerMatches(peer: Peer, party: Party, policyNamespace: string): boolean {
  if (peer.ipBlock)
    return !!party.ip && inCidr(party.ip, peer.ipBlock.cidr) && !(peer.ipBlock.except ?? []).some((c) => inCidr(party.ip!, c));
  if (!party.namespace) return false;
  const namespaceOk = peer.namespaceSelector
    ? matches(peer.namespaceSelector.matchLabels, { 'kubernetes.io/metadata.name': party.namespace })
    : party.namespace === policyNamespace;
  return namespaceOk && (!peer.podSelector || matches(peer.podSelector.matchLabels, party.labels));
}

function ruleAllows(rule: Rule, peers: Peer[] | undefined, party: Party, port: { protocol: string; port: number }, ns: string): boolean {
  const portOk =
    !rule.ports?.length ||
    rule.ports.some((p) => (p.protocol ?? 'TCP') === port.protocol && (p.port === undefined || p.port === port.port));
  const peerOk = !peers?.length || peers.some((peer) => peerMatches(peer, party, ns));
  return portOk && peerOk;
}

function allows(
  policies: Policy[],
  direction: 'Ingress' | 'Egress',
  self: Party,
  other: Party,
  port: { protocol: string; port: number },
): boolean {
  const selecting = policies.filter(
    (p) =>
      p.metadata.namespace === self.namespace &&
      p.spec.policyTypes.includes(direction) &&
      matches(p.spec.podSelector.matchLabels, self.labels),
  );
  if (selecting.length === 0) return true;
  return selecting.some((p) =>
    (direction === 'Ingress' ? p.spec.ingress : p.spec.egress)?.some((rule) =>
      ruleAllows(rule, direction === 'Ingress' ? rule.from : rule.to, other, port, p.metadata.namespace),
    ),
  );
}

/** Every allowed connection touching the deployment's namespace, as `source -> destination protocol/port`. */
export function allowedEdges(policyObjects: unknown[], values: Values): string[] {
  const policies = JSON.parse(JSON.stringify(policyObjects)) as Policy[];
  const all = parties(values);
  const edges: string[] = [];
  for (const from of all) {
    for (const to of all) {
      const fromInside = from.namespace === values.namespace;
      const toInside = to.namespace === values.namespace;
      if (!fromInside && !toInside) continue;
      for (const port of PORTS) {
        const out = !fromInside || allows(policies, 'Egress', from, to, port);
        const inn = !toInside || allows(policies, 'Ingress', to, from, port);
        if (out && inn) edges.push(`${from.id} -> ${to.id} ${port.protocol.toLowerCase()}/${port.port}`);
      }
    }
  }
  return edges;
}

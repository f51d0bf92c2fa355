import { layoutPorts, replicaCounts, replicaPort, serviceUrls } from './replicas';

describe('npm start replica layout', () => {
  it('runs one of each by default, MM_REPLICAS of each when set, MM_REPLICAS_<SERVICE> for one service', () => {
    expect(replicaCounts({})).toEqual({ orchestrator: 1, auth: 1, partners: 1, 'ledger-wallets': 1, 'webhook-dispatcher': 1 });
    expect(replicaCounts({ MM_REPLICAS: '2', MM_REPLICAS_LEDGER_WALLETS: '3', MM_REPLICAS_WEBHOOK_DISPATCHER: '' })).toEqual({
      orchestrator: 2,
      auth: 2,
      partners: 2,
      'ledger-wallets': 3,
      'webhook-dispatcher': 2,
    });
  });

  it.each([
    [{ MM_REPLICAS: '0' }, 'MM_REPLICAS must be a whole number from 1 to 9 (got "0")'],
    [{ MM_REPLICAS: '10' }, 'MM_REPLICAS must be a whole number from 1 to 9'],
    [{ MM_REPLICAS: '1.5' }, 'MM_REPLICAS must be a whole number'],
    [{ MM_REPLICAS: 'two' }, 'MM_REPLICAS must be a whole number'],
    [{ MM_REPLICAS_AUTH: '-1' }, 'MM_REPLICAS_AUTH must be a whole number'],
    [{ MM_REPLICAS_LEDGER: '2' }, 'MM_REPLICAS_LEDGER names no service: use one of MM_REPLICAS_ORCHESTRATOR'],
  ])('refuses %j', (env, message) => {
    expect(() => replicaCounts(env)).toThrow(message);
  });

  it('puts replica r on the usual port + 10 r, and the orchestrator replicas on its one public and one internal port', () => {
    const counts = replicaCounts({ MM_REPLICAS: '2' });
    expect(replicaPort('auth', 3000, 1)).toBe(3011);
    expect(replicaPort('ledger-wallets', 3000, 1)).toBe(3013);
    expect(replicaPort('orchestrator', 3000, 1)).toBe(3000);
    expect(serviceUrls('ledger-wallets', 3000, counts)).toBe('http://127.0.0.1:3003,http://127.0.0.1:3013');
    expect(
      layoutPorts(3000, counts)
        .map((p) => p.port)
        .sort(),
    ).toEqual([3000, 3001, 3002, 3003, 3004, 3011, 3012, 3013, 3014, 3100]);
    // No two listeners on one port even at the maximum.
    const ports = layoutPorts(3000, replicaCounts({ MM_REPLICAS: '9' })).map((p) => p.port);
    expect(new Set(ports).size).toBe(ports.length);
  });

  it('with one replica, gives callers the single URL they had before', () => {
    expect(serviceUrls('auth', 4000, replicaCounts({}))).toBe('http://127.0.0.1:4001');
    expect(layoutPorts(4000, replicaCounts({})).map((p) => p.port)).toEqual([4000, 4001, 4002, 4003, 4004, 4100]);
  });
});

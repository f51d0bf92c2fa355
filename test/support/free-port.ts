import { type AddressInfo, createServer } from 'node:net';

/**
 * A loopback port nobody listens on right now, for a process or server the test starts itself: the
 * machine is shared with other test files and helpers, so nothing may count on a fixed port.
 */
export async function freePort(): Promise<number> {
  const [port] = await freePorts(1);
  return port;
}

/**
 * `count` distinct free ports: every one is held open until all are picked, so the kernel cannot
 * hand the same port out twice (two services given one port: the second cannot bind, and the
 * first answers the calls meant for it with 404).
 */
export async function freePorts(count: number): Promise<number[]> {
  const servers = Array.from({ length: count }, () => createServer());
  await Promise.all(servers.map((s) => new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve))));
  const ports = servers.map((s) => (s.address() as AddressInfo).port);
  await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))));
  return ports;
}

import { type AddressInfo, createServer } from 'node:net';

/**
 * A loopback port nobody listens on right now, for a process or server the test starts itself: the
 * machine is shared with other test files and helpers, so nothing may count on a fixed port.
 */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

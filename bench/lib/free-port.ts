import { type AddressInfo, createServer } from 'node:net';

/** A loopback port nobody listens on right now: the machine is shared, so the benches use no fixed ports. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

import net from 'node:net';
import type { AddressInfo } from 'node:net';

/**
 * A TCP relay to a real server (here Redis) that a test can cut and restore: `stop` closes the
 * listening port and every relayed connection (the server is then unreachable, as when it is down),
 * `start` listens again on the same port. `hold` keeps the connections open but holds back every
 * byte sent to the server (a slow link: commands written, not yet arrived) until `release`, which
 * forwards them in order.
 */
export class TcpProxy {
  private server?: net.Server;
  private readonly sockets = new Set<net.Socket>();
  private held?: { to: net.Socket; chunk: Buffer }[];
  port = 0;

  constructor(
    private readonly targetHost: string,
    private readonly targetPort: number,
  ) {}

  async start(): Promise<this> {
    // noDelay both ways: Nagle's algorithm would hold each relayed small write for the peer's delayed ACK.
    const server = net.createServer({ noDelay: true }, (client) => {
      const upstream = net.connect({ port: this.targetPort, host: this.targetHost, noDelay: true });
      for (const s of [client, upstream]) {
        this.sockets.add(s);
        s.on('close', () => this.sockets.delete(s));
        s.on('error', () => undefined);
      }
      client.on('data', (chunk: Buffer) => {
        if (this.held) this.held.push({ to: upstream, chunk });
        else upstream.write(chunk);
      });
      upstream.pipe(client);
      client.on('close', () => upstream.destroy());
      upstream.on('close', () => client.destroy());
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.port, '127.0.0.1', () => resolve());
    });
    this.server = server;
    this.port = (server.address() as AddressInfo).port;
    return this;
  }

  /** From now on, bytes towards the server wait here (the connections stay open). */
  hold(): void {
    this.held ??= [];
  }

  /** Forwards what was held back, in order, and relays normally again. */
  release(): void {
    const held = this.held ?? [];
    this.held = undefined;
    for (const { to, chunk } of held) if (!to.destroyed) to.write(chunk);
  }

  async stop(): Promise<void> {
    const server = this.server;
    if (!server) return;
    this.server = undefined;
    this.held = undefined;
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

import net from 'node:net';
import type { AddressInfo } from 'node:net';

/**
 * A TCP relay in front of the shared Redis, so one test can take "Redis" away from the apps it
 * boots (and give it back on the same port) without touching the server other tests use.
 */
export class RedisProxy {
  private server?: net.Server;
  private readonly sockets = new Set<net.Socket>();
  port = 0;

  constructor(private readonly target: { host: string; port: number }) {}

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  async start(): Promise<this> {
    if (this.server) return this;
    // noDelay both ways: Nagle's algorithm would hold each relayed small write for the peer's delayed ACK.
    const server = net.createServer({ noDelay: true }, (client) => {
      const upstream = net.connect({ port: this.target.port, host: this.target.host, noDelay: true });
      for (const s of [client, upstream]) {
        this.sockets.add(s);
        s.on('close', () => this.sockets.delete(s));
        s.on('error', () => s.destroy());
      }
      client.pipe(upstream);
      upstream.pipe(client);
      client.on('close', () => upstream.destroy());
      upstream.on('close', () => client.destroy());
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.port, '127.0.0.1', resolve);
    });
    this.server = server;
    this.port = (server.address() as AddressInfo).port;
    return this;
  }

  /** Redis is gone: open connections drop, new ones are refused. */
  async cut(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    for (const s of this.sockets) s.destroy();
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  /** Redis is back, on the same port. */
  restore(): Promise<this> {
    return this.start();
  }

  stop(): Promise<void> {
    return this.cut();
  }
}

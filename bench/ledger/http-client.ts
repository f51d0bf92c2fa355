import { Agent, request } from 'node:http';

export interface HttpResult {
  status: number;
  body: { code?: string } & Record<string, unknown>;
  headers: Record<string, string | string[] | undefined>;
}

/** A keep-alive HTTP/1.1 client with less overhead than fetch, so the load generator stays out of the measurement. */
export class BenchClient {
  private readonly agent: Agent;

  constructor(
    private readonly baseUrl: string,
    private readonly headers: Record<string, string>,
    maxSockets = 64,
  ) {
    this.agent = new Agent({ keepAlive: true, maxSockets });
  }

  call(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<HttpResult> {
    const url = new URL(path, this.baseUrl);
    const payload = body === undefined ? undefined : JSON.stringify(body);
    return new Promise((resolve, reject) => {
      const req = request(
        {
          agent: this.agent,
          method,
          hostname: url.hostname,
          port: url.port,
          path: url.pathname + url.search,
          headers: {
            ...this.headers,
            ...(payload ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) } : {}),
            ...headers,
          },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            let parsed: unknown = text;
            try {
              parsed = text ? JSON.parse(text) : undefined;
            } catch {
              /* keep text */
            }
            resolve({ status: res.statusCode ?? 0, body: (parsed ?? {}) as HttpResult['body'], headers: res.headers });
          });
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      if (payload) req.write(payload);
      req.end();
    });
  }

  close(): void {
    this.agent.destroy();
  }
}

import { Writable } from 'node:stream';
import { Controller, Get, HttpCode, Module, Param, Post, UseGuards } from '@nestjs/common';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyRequest } from 'fastify';
import {
  BaseConfig,
  INTERNAL_CALLER_TABLE,
  type InternalCallerTable,
  PlatformModule,
  ServiceCallerKeys,
  ServiceKeyGuard,
  type ServiceKeys,
  createApp,
  createLogger,
  formatTrustedCallers,
  generateServiceKeys,
  loadConfig,
  serviceKeyDigest,
} from '@mm/platform';

/** How many times each handler ran: a refused request must never reach one. */
const reached = { read: 0, write: 0, unlisted: 0 };

@Controller('internal/things')
@UseGuards(ServiceKeyGuard)
class ThingsController {
  @Get(':id')
  read(@Param('id') id: string): { id: string } {
    reached.read++;
    return { id };
  }

  @Post()
  @HttpCode(201)
  write(): { ok: true } {
    reached.write++;
    return { ok: true };
  }

  /** a route somebody forgot to put in the table */
  @Post('unlisted')
  unlisted(): { ok: true } {
    reached.unlisted++;
    return { ok: true };
  }
}

const TABLE: InternalCallerTable = {
  'GET /internal/things/:id': ['orchestrator', 'ops'],
  'POST /internal/things': ['orchestrator'],
};

class TestConfig extends BaseConfig {}

interface Running {
  app: NestFastifyApplication;
  url: string;
  lines: Record<string, unknown>[];
}

/** A service recognising orchestrator (with the given keys), partners and ops, with the table above. */
async function start(keys: ServiceKeys, orchestratorKeys: string[] = [keys.orchestrator]): Promise<Running> {
  const config = loadConfig(TestConfig, {
    INTERNAL_SERVICE_KEY: keys['ledger-wallets'],
    INTERNAL_TRUSTED_CALLERS: formatTrustedCallers({
      orchestrator: orchestratorKeys.map(serviceKeyDigest),
      partners: [serviceKeyDigest(keys.partners)],
      ops: [serviceKeyDigest(keys.ops)],
    }),
  });
  @Module({
    imports: [PlatformModule.forRoot({ service: 'ledger-wallets', config })],
    controllers: [ThingsController],
    providers: [{ provide: INTERNAL_CALLER_TABLE, useValue: TABLE }],
  })
  class TestModule {}
  const lines: Record<string, unknown>[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString().split('\n')) if (line.trim()) lines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  const app = await createApp(TestModule, {
    service: 'ledger-wallets',
    config,
    logger: createLogger({ service: 'test', level: 'info', destination }),
  });
  await app.listen(0, '127.0.0.1');
  return { app, url: (await app.getUrl()).replace('[::1]', '127.0.0.1'), lines };
}

async function call(base: string, method: string, path: string, key?: string): Promise<{ status: number; code?: string }> {
  const res = await fetch(`${base}${path}`, { method, headers: key === undefined ? {} : { 'x-service-key': key } });
  const text = await res.text();
  return { status: res.status, code: text ? (JSON.parse(text) as { code?: string }).code : undefined };
}

describe('ServiceKeyGuard: who is calling, and may it call this route', () => {
  const keys = generateServiceKeys();
  let s: Running;
  beforeAll(async () => {
    s = await start(keys);
  });
  afterAll(() => s.app.close());

  it('401 INVALID_SERVICE_CREDENTIALS without a key, with an unknown key, or with a key the service does not recognise', async () => {
    const before = { ...reached };
    for (const key of [undefined, '', 'x'.repeat(64), keys.auth, keys['ledger-wallets']]) {
      expect(await call(s.url, 'GET', '/internal/things/1', key)).toEqual({ status: 401, code: 'INVALID_SERVICE_CREDENTIALS' });
    }
    expect(reached).toEqual(before);
  });

  it('lets an allowed caller through (HEAD follows GET)', async () => {
    expect(await call(s.url, 'GET', '/internal/things/1', keys.orchestrator)).toEqual({ status: 200, code: undefined });
    expect(await call(s.url, 'GET', '/internal/things/2', keys.ops)).toEqual({ status: 200, code: undefined });
    expect((await call(s.url, 'HEAD', '/internal/things/3', keys.ops)).status).toBe(200);
    expect(await call(s.url, 'POST', '/internal/things', keys.orchestrator)).toEqual({ status: 201, code: undefined });
  });

  it('403 SERVICE_NOT_ALLOWED for a recognised caller on a route not open to it; the handler never runs', async () => {
    const before = { ...reached };
    expect(await call(s.url, 'GET', '/internal/things/1', keys.partners)).toEqual({ status: 403, code: 'SERVICE_NOT_ALLOWED' });
    expect(await call(s.url, 'POST', '/internal/things', keys.partners)).toEqual({ status: 403, code: 'SERVICE_NOT_ALLOWED' });
    expect(await call(s.url, 'POST', '/internal/things', keys.ops)).toEqual({ status: 403, code: 'SERVICE_NOT_ALLOWED' });
    expect(reached).toEqual(before);
  });

  it('refuses every caller on a guarded route missing from the table (default deny), and logs it as an error', async () => {
    for (const key of [keys.orchestrator, keys.partners, keys.ops]) {
      expect(await call(s.url, 'POST', '/internal/things/unlisted', key)).toEqual({ status: 403, code: 'SERVICE_NOT_ALLOWED' });
    }
    expect(reached.unlisted).toBe(0);
    expect(s.lines).toContainEqual(
      expect.objectContaining({
        level: 50,
        route: 'POST /internal/things/unlisted',
        msg: expect.stringMatching(/no entry in the caller table/),
      }),
    );
  });

  it("names the caller in each internal request's log line, and never writes a key or its digest", async () => {
    await call(s.url, 'GET', '/internal/things/logged', keys.ops);
    await call(s.url, 'GET', '/internal/things/logged', keys.partners);
    const requests = s.lines.filter((l) => l.msg === 'request' && l.url === '/internal/things/logged');
    expect(requests.map((l) => [l.caller, l.status])).toEqual([
      ['ops', 200],
      ['partners', 403],
    ]);
    const output = JSON.stringify(s.lines);
    for (const key of Object.values(keys)) {
      expect(output).not.toContain(key);
      expect(output).not.toContain(serviceKeyDigest(key));
    }
  });
});

describe('ServiceKeyGuard: rotating a caller key without downtime', () => {
  it('accepts the old and the new key during the overlap, and only the new one once the old digest is removed', async () => {
    const keys = generateServiceKeys();
    const oldKey = generateServiceKeys().orchestrator;

    // 1. the callee trusts both (the caller still presents the old key)
    const overlap = await start(keys, [oldKey, keys.orchestrator]);
    try {
      expect((await call(overlap.url, 'POST', '/internal/things', oldKey)).status).toBe(201);
      // 2. the caller switches to its new key: both work meanwhile
      expect((await call(overlap.url, 'POST', '/internal/things', keys.orchestrator)).status).toBe(201);
      expect((await call(overlap.url, 'POST', '/internal/things', oldKey)).status).toBe(201);
    } finally {
      await overlap.app.close();
    }

    // 3. the callee drops the old digest: the old key is a stranger, the new one keeps working
    const after = await start(keys, [keys.orchestrator]);
    try {
      expect(await call(after.url, 'POST', '/internal/things', oldKey)).toEqual({ status: 401, code: 'INVALID_SERVICE_CREDENTIALS' });
      expect((await call(after.url, 'POST', '/internal/things', keys.orchestrator)).status).toBe(201);
    } finally {
      await after.app.close();
    }
  });
});

describe('ServiceCallerKeys: the caller of a public route that serves one service differently', () => {
  it('names a recognised caller and keeps it on the request for its log line; no key or an unknown one: nobody', () => {
    const keys = generateServiceKeys();
    const callers = new ServiceCallerKeys(
      formatTrustedCallers({ orchestrator: [serviceKeyDigest(keys.orchestrator)], ops: [serviceKeyDigest(keys.ops)] }),
    );
    const request = (key?: string | string[]) =>
      ({ headers: key === undefined ? {} : { 'x-service-key': key }, serviceCaller: null }) as unknown as FastifyRequest;

    for (let i = 0; i < 2; i++) {
      // the second time from the recognised keys, same answer
      const fromOrchestrator = request(keys.orchestrator);
      expect(callers.identify(fromOrchestrator)).toBe('orchestrator');
      expect(fromOrchestrator.serviceCaller).toBe('orchestrator');
      const fromOps = request(keys.ops);
      expect(callers.identify(fromOps)).toBe('ops');
      expect(fromOps.serviceCaller).toBe('ops');
    }
    for (const stranger of [request(), request(keys.partners), request('not-a-key'), request([keys.orchestrator])]) {
      expect(callers.identify(stranger)).toBeUndefined();
      expect(stranger.serviceCaller).toBeNull();
    }
  });
});

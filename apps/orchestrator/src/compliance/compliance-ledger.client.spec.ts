import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Logger } from '@nestjs/common';
import { AppException, type ErrorCode, statusOf } from '@mm/errors';
import { closeInternalHttpConnections, loadConfig } from '@mm/platform';
import { OrchestratorConfig } from '../orchestrator.config';
import { ComplianceLedgerClient } from './compliance-ledger.client';

/** The relay's mapping of the ledger's refusals, with the HTTP client stubbed (the e2e test covers the wire). */
describe('ComplianceLedgerClient: what the ledger refuses and who is to blame', () => {
  const env = {
    INTERNAL_SERVICE_KEY: 'k'.repeat(32),
    LEDGER_TIMEOUT_MS: '300',
    LEDGER_RETRY_BASE_MS: '0',
  };
  const config = loadConfig(OrchestratorConfig, env);
  let errors: jest.SpyInstance;
  beforeEach(() => (errors = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined)));
  afterEach(() => errors.mockRestore());

  /** A client whose ledger answers every call with `code`; `calls` records each request's options. */
  function clientAnswering(code: ErrorCode) {
    const client = new ComplianceLedgerClient(config);
    const calls: Array<{ path: string; timeoutMs?: number }> = [];
    const fail = (path: string, options?: { timeoutMs?: number }) => {
      calls.push({ path, timeoutMs: options?.timeoutMs });
      return Promise.reject(new AppException(code));
    };
    (client as unknown as { http: unknown }).http = {
      get: (path: string, options?: { timeoutMs?: number }) => fail(path, options),
      post: (path: string, _body: unknown, options?: { timeoutMs?: number }) => fail(path, options),
    };
    return { client, calls };
  }

  /**
   * The ledger's refusals of the orchestrator's own credential are mapped by InternalHttpClient
   * (for every upstream), so those go over the wire to a fake ledger answering `code`.
   */
  let fakeLedger: Server;
  let answer: ErrorCode = 'INVALID_SERVICE_CREDENTIALS';
  beforeAll(async () => {
    fakeLedger = createServer((_req, res) =>
      res
        .writeHead(statusOf(answer), { 'content-type': 'application/json' })
        .end(JSON.stringify({ code: answer, message: 'refused', requestId: 'x' })),
    );
    await new Promise<void>((r) => fakeLedger.listen(0, '127.0.0.1', r));
  });
  afterAll(async () => {
    await closeInternalHttpConnections();
    await new Promise<void>((r) => fakeLedger.close(() => r()));
  });
  function clientOverTheWire(code: ErrorCode) {
    answer = code;
    const { port } = fakeLedger.address() as AddressInfo;
    return { client: new ComplianceLedgerClient(loadConfig(OrchestratorConfig, { ...env, LEDGER_URL: `http://127.0.0.1:${port}` })) };
  }
  const OVER_THE_WIRE: ReadonlySet<ErrorCode> = new Set<ErrorCode>(['INVALID_SERVICE_CREDENTIALS', 'SERVICE_NOT_ALLOWED']);

  it.each<ErrorCode>(['INVALID_SERVICE_CREDENTIALS', 'SERVICE_NOT_ALLOWED', 'TOKEN_INVALID', 'OPERATOR_TOKEN_REQUIRED'])(
    "the ledger's %s is the platform's fault: 502 UPSTREAM_UNAVAILABLE, logged at ERROR with the ledger's code",
    async (code) => {
      const { client } = OVER_THE_WIRE.has(code) ? clientOverTheWire(code) : clientAnswering(code);
      await expect(client.audit('00000000-0000-4000-8000-000000000001', 'token')).rejects.toMatchObject({
        code: 'UPSTREAM_UNAVAILABLE',
        status: 502,
      });
      expect(errors).toHaveBeenCalledWith(expect.objectContaining({ code }), expect.any(String));
    },
  );

  it.each<ErrorCode>(['TOKEN_EXPIRED', 'OPERATOR_ROLE_REQUIRED', 'ACCOUNT_NOT_FOUND'])('%s is relayed as it is', async (code) => {
    const { client } = clientAnswering(code);
    await expect(client.audit('00000000-0000-4000-8000-000000000001', 'token')).rejects.toMatchObject({ code });
    expect(errors).not.toHaveBeenCalled();
  });

  it('an audit and a check that time out are tried once, with COMPLIANCE_LEDGER_TIMEOUT_MS; the list keeps the retries', async () => {
    const { client, calls } = clientAnswering('UPSTREAM_TIMEOUT');
    await expect(client.audit('00000000-0000-4000-8000-000000000001', 'token')).rejects.toMatchObject({ code: 'UPSTREAM_TIMEOUT' });
    await expect(client.runIntegrityCheck('token')).rejects.toMatchObject({ code: 'UPSTREAM_TIMEOUT' });
    expect(calls).toEqual([
      { path: '/v1/internal/accounts/00000000-0000-4000-8000-000000000001/audit', timeoutMs: config.COMPLIANCE_LEDGER_TIMEOUT_MS },
      { path: '/v1/internal/integrity-checks', timeoutMs: config.COMPLIANCE_LEDGER_TIMEOUT_MS },
    ]);
    calls.length = 0;
    await expect(client.integrityChecks(5, 'token')).rejects.toMatchObject({ code: 'UPSTREAM_TIMEOUT' });
    expect(calls).toHaveLength(config.LEDGER_RETRY_ATTEMPTS);
  });
});

import { Body, Controller, Get, Module, Post } from '@nestjs/common';
import { Type } from 'class-transformer';
import { IsArray, IsInt, IsString, Min, ValidateNested } from 'class-validator';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { PlatformModule, createApp, loadConfig, BaseConfig } from '@mm/platform';
import { callerKey } from '../support/test-env';

class Line {
  @IsInt({ context: { code: 'INVALID_AMOUNT' } })
  @Min(1, { context: { code: 'INVALID_AMOUNT' } })
  amount: number;
}
class Payment {
  @IsString()
  label: string;
  @IsArray()
  @ValidateNested({ each: true })
  @Type(() => Line)
  lines: Line[];
}

@Controller('things')
class ThingsController {
  @Post()
  create(@Body() body: Payment): Payment {
    return body;
  }
  @Get('boom')
  boom(): never {
    throw new Error('relation "ledger.secret_table" does not exist at Pool.query');
  }
}

class TestConfig extends BaseConfig {}

describe('platform: error body and headers on every response', () => {
  let app: NestFastifyApplication;

  beforeAll(async () => {
    const config = loadConfig(TestConfig, {
      INTERNAL_SERVICE_KEY: callerKey('orchestrator'),
      LOG_LEVEL: 'silent',
      BODY_LIMIT_BYTES: '2048',
    });
    @Module({ imports: [PlatformModule.forRoot({ service: 'test', config })], controllers: [ThingsController] })
    class TestModule {}
    app = await createApp(TestModule, { service: 'test', config, globalPrefix: 'api' });
    await app.getHttpAdapter().getInstance().ready();
  });
  afterAll(() => app.close());

  const inject = (opts: Parameters<NestFastifyApplication['inject']>[0]) => app.inject(opts as never);

  it('echoes a valid X-Request-Id and sets Server-Timing on success', async () => {
    const id = '6f1c2f0e-3b5a-4c1d-9e2f-0a1b2c3d4e5f';
    const res = await inject({
      method: 'POST',
      url: '/api/things',
      headers: { 'x-request-id': id },
      payload: { label: 'a', lines: [{ amount: 5 }] },
    });
    expect(res.statusCode).toBe(201);
    expect(res.headers['x-request-id']).toBe(id);
    expect(res.headers['server-timing']).toMatch(/^total;dur=\d+(\.\d+)?$/);
  });

  it('replaces an invalid X-Request-Id with a fresh UUID', async () => {
    const res = await inject({ method: 'GET', url: '/health', headers: { 'x-request-id': 'not-a-uuid' } });
    expect(res.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    expect(res.headers['x-request-id']).not.toBe('not-a-uuid');
  });

  it('renders nested and array validation failures as one errors[] entry per field', async () => {
    const res = await inject({
      method: 'POST',
      url: '/api/things',
      payload: { label: 3, lines: [{ amount: 2 }, { amount: 0 }], extra: true },
    });
    expect(res.statusCode).toBe(400);
    const body = res.json();
    expect(body.code).toBe('VALIDATION_ERROR');
    expect(body.requestId).toBe(res.headers['x-request-id']);
    expect(body.errors).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ field: 'label', code: 'INVALID_STRING' }),
        expect.objectContaining({ field: 'lines[1].amount', code: 'INVALID_AMOUNT' }),
        expect.objectContaining({ field: 'extra', code: 'UNKNOWN_FIELD' }),
      ]),
    );
    expect(body.errors).toHaveLength(3);
  });

  it.each([
    [
      'malformed JSON',
      { method: 'POST', url: '/api/things', headers: { 'content-type': 'application/json' }, payload: '{"label":' },
      400,
      'MALFORMED_JSON',
    ],
    [
      'wrong content type',
      { method: 'POST', url: '/api/things', headers: { 'content-type': 'text/csv' }, payload: 'a,b' },
      415,
      'UNSUPPORTED_MEDIA_TYPE',
    ],
    [
      'oversized body',
      {
        method: 'POST',
        url: '/api/things',
        headers: { 'content-type': 'application/json' },
        payload: JSON.stringify({ label: 'x'.repeat(4096), lines: [] }),
      },
      413,
      'PAYLOAD_TOO_LARGE',
    ],
    ['unknown route', { method: 'GET', url: '/api/nowhere' }, 404, 'NOT_FOUND'],
    ['wrong method', { method: 'DELETE', url: '/api/things' }, 405, 'METHOD_NOT_ALLOWED'],
  ])('%s → %p %s with the platform body and headers', async (_name, request, status, code) => {
    const res = await inject(request as never);
    expect(res.statusCode).toBe(status);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.headers['x-request-id']).toBeDefined();
    expect(res.headers['server-timing']).toMatch(/^total;dur=/);
    expect(res.json()).toEqual({ code, message: expect.any(String), requestId: res.headers['x-request-id'] });
  });

  it('answers 405 with the allowed methods', async () => {
    const res = await inject({ method: 'DELETE', url: '/api/things' });
    expect(res.headers.allow).toBe('POST');
  });

  it('turns an unexpected exception into 500 INTERNAL_ERROR without leaking internals', async () => {
    const res = await inject({ method: 'GET', url: '/api/things/boom' });
    expect(res.statusCode).toBe(500);
    expect(res.json()).toEqual({ code: 'INTERNAL_ERROR', message: 'An unexpected error occurred', requestId: res.headers['x-request-id'] });
    expect(res.body).not.toMatch(/ledger|secret_table|Pool|at /);
  });

  it('publishes an OpenAPI document of its routes with the shared error body', async () => {
    const res = await inject({ method: 'GET', url: '/openapi.json' });
    expect(res.statusCode).toBe(200);
    const doc = res.json();
    expect(doc.openapi).toMatch(/^3\./);
    expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(['/api/things', '/api/things/boom']));
    expect(doc.components.schemas.ErrorBody.required).toEqual(['code', 'message', 'requestId']);
  });
});

import { BadRequestException, HttpException, NotFoundException, ServiceUnavailableException } from '@nestjs/common';
import { AppException } from './app-exception';
import { describeError } from './describe-error';

describe('describeError', () => {
  it('keeps an AppException code, status, message and headers', () => {
    const d = describeError(
      new AppException('INSUFFICIENT_BALANCE', 'available 100 XAF, required 150 XAF', { headers: { 'retry-after': '1' } }),
    );
    expect(d).toMatchObject({
      status: 422,
      code: 'INSUFFICIENT_BALANCE',
      message: 'available 100 XAF, required 150 XAF',
      headers: { 'retry-after': '1' },
      unexpected: false,
    });
    expect(d.errors).toBeUndefined();
  });

  it('marks a 5xx AppException with a cause as unavailable (logged as a warning with the cause), never a 4xx or one without', () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:3003'), { code: 'ECONNREFUSED' });
    const upstream = new AppException('UPSTREAM_UNAVAILABLE', 'ledger is unavailable', { cause: refused });
    expect(upstream.cause).toBe(refused);
    expect(describeError(upstream)).toMatchObject({
      status: 502,
      code: 'UPSTREAM_UNAVAILABLE',
      message: 'ledger is unavailable',
      unavailable: true,
    });
    expect(describeError(new AppException('UPSTREAM_UNAVAILABLE')).unavailable).toBe(false);
    expect(describeError(new AppException('NOT_FOUND', undefined, { cause: refused })).unavailable).toBe(false);
  });

  it('relays another service status when given (codes survive the network)', () => {
    expect(describeError(new AppException('INVALID_CREDENTIALS', undefined, { status: 401 })).status).toBe(401);
  });

  it('maps Fastify body errors, wrapped by Nest or not', () => {
    const tooLarge = Object.assign(new Error('Request body is too large'), { code: 'FST_ERR_CTP_BODY_TOO_LARGE', statusCode: 413 });
    expect(describeError(tooLarge)).toMatchObject({ status: 413, code: 'PAYLOAD_TOO_LARGE' });
    expect(describeError(new HttpException('x', 413, { cause: tooLarge }))).toMatchObject({ status: 413, code: 'PAYLOAD_TOO_LARGE' });
    const badJson = Object.assign(new SyntaxError('Unexpected end of JSON input'), { statusCode: 400 });
    expect(describeError(new HttpException('x', 400, { cause: badJson }))).toMatchObject({ status: 400, code: 'MALFORMED_JSON' });
  });

  it('maps framework HTTP exceptions to generic codes with generic messages', () => {
    expect(describeError(new NotFoundException('Cannot GET /secret/path'))).toMatchObject({
      status: 404,
      code: 'NOT_FOUND',
      message: 'Resource not found',
    });
    expect(describeError(new BadRequestException('internal detail'))).toMatchObject({ status: 400, code: 'BAD_REQUEST' });
    expect(describeError(new ServiceUnavailableException())).toMatchObject({ status: 503, code: 'SERVICE_UNAVAILABLE' });
  });

  it('turns anything unknown into an unexpected 500 with a generic message', () => {
    const d = describeError(new TypeError("Cannot read properties of undefined (reading 'balance')"));
    expect(d).toEqual({ status: 500, code: 'INTERNAL_ERROR', message: 'An unexpected error occurred', unexpected: true });
    expect(describeError('a string').code).toBe('INTERNAL_ERROR');
    expect(describeError(null).code).toBe('INTERNAL_ERROR');
  });

  it('turns a lost or refused database/Redis connection into 503 SERVICE_UNAVAILABLE without the driver text', () => {
    const typeormWrapped = Object.assign(new Error('terminating connection due to administrator command'), {
      name: 'QueryFailedError',
      driverError: Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' }),
    });
    const refused = () => Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
    const causes = [
      typeormWrapped,
      refused(),
      new Error('Connection terminated unexpectedly'),
      new Error('timeout exceeded when trying to connect'),
      Object.assign(new Error('the database system is starting up'), { code: '57P03' }),
      new AggregateError([refused()], 'connect failed'),
    ];
    for (const cause of causes) {
      expect(describeError(cause)).toEqual({
        status: 503,
        code: 'SERVICE_UNAVAILABLE',
        message: 'The service is temporarily unavailable',
        headers: { 'retry-after': '1' },
        unexpected: false,
        unavailable: true,
      });
    }
    // A constraint or syntax error stays a bug.
    expect(describeError(Object.assign(new Error('duplicate key'), { code: '23505' })).code).toBe('INTERNAL_ERROR');
  });
});

import { buildEntry, errorCodeOf, isAudited, safeFields } from './audit-record';

const actor = { userId: '5b0e1c8e-3f0a-4c55-9a57-1f1d3c0b9e21', role: 'ADMIN' };
const base = {
  method: 'POST',
  route: '/api/x/:customerId',
  params: {},
  query: {},
  body: undefined,
  requestId: 'r',
  status: 200,
  payload: '{}',
};

describe('staff audit record', () => {
  it('never keeps a secret-looking parameter, a body, or an over-long value', () => {
    expect(safeFields({ pin: '1234', otp: '123456', apiKey: 'k', accessToken: 't', phone: '+237690000001', n: 3, deep: { a: 1 } })).toEqual(
      {
        pin: '[redacted]',
        otp: '[redacted]',
        apiKey: '[redacted]',
        accessToken: '[redacted]',
        phone: '+237690000001',
        n: '3',
      },
    );
    expect((safeFields({ q: 'x'.repeat(500) }).q as string).length).toBe(201);
    const entry = buildEntry(actor, { ...base, body: { reason: '  why  ', pin: '1234', amount: 5 } });
    expect(entry.reason).toBe('why');
    expect(JSON.stringify(entry)).not.toContain('1234');
  });

  it('records every write and only the marked reads', () => {
    expect(isAudited('POST', undefined)).toBe(true);
    expect(isAudited('DELETE', { name: 'a.b' })).toBe(true);
    expect(isAudited('GET', { name: 'a.b' })).toBe(false);
    expect(isAudited('GET', { name: 'a.b', read: { type: 'person', param: 'userId' } })).toBe(true);
  });

  it('names the target from the marker, else from a parameter it knows', () => {
    const params = { customerId: 'c1' };
    expect(buildEntry(actor, { ...base, params })).toMatchObject({ targetType: 'person', targetId: 'c1', details: { params } });
    expect(buildEntry(actor, { ...base, route: '/api/x/:thing', params: { thing: 't' } })).toMatchObject({
      targetType: null,
      targetId: null,
    });
    expect(buildEntry(actor, { ...base, route: '/api/backoffice/approvals/:id/approve', params: { id: 'a1' } })).toMatchObject({
      targetType: 'approval',
      targetId: 'a1',
    });
    const read = buildEntry(actor, {
      ...base,
      method: 'GET',
      query: { phone: '+237690000001' },
      tag: { name: 'people.search', read: { type: 'person', query: 'phone' } },
    });
    expect(read).toMatchObject({
      targetType: 'person',
      targetId: '+237690000001',
      actionName: 'people.search',
      details: { query: { phone: '+237690000001' } },
    });
    // a write's query is not kept
    expect(buildEntry(actor, { ...base, query: { a: '1' } }).details).toEqual({});
  });

  it('reads the stable code of a refusal only', () => {
    expect(errorCodeOf(403, '{"code":"FORBIDDEN","message":"x"}')).toBe('FORBIDDEN');
    expect(errorCodeOf(200, '{"code":"FORBIDDEN"}')).toBeNull();
    expect(errorCodeOf(500, 'not json')).toBeNull();
    expect(errorCodeOf(400, Buffer.from('{"code":"VALIDATION_ERROR"}'))).toBe('VALIDATION_ERROR');
  });
});

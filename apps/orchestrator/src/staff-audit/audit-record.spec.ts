import { buildEntry, errorCodeOf, isAudited, resultIdOf, safeFields } from './audit-record';

const actor = { userId: '5b0e1c8e-3f0a-4c55-9a57-1f1d3c0b9e21', role: 'ADMIN' };
const base = {
  method: 'POST',
  route: '/api/x/:customerId',
  params: {},
  query: {},
  body: undefined,
  requestId: 'r',
};
const ok = { status: 200, payload: '{}' };

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
    const entry = buildEntry(actor, { ...base, body: { reason: '  why  ', pin: '1234', amount: 5 } }, ok);
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
    expect(buildEntry(actor, { ...base, params }, ok)).toMatchObject({ targetType: 'person', targetId: 'c1', details: { params } });
    expect(buildEntry(actor, { ...base, route: '/api/x/:thing', params: { thing: 't' } }, ok)).toMatchObject({
      targetType: null,
      targetId: null,
    });
    expect(buildEntry(actor, { ...base, route: '/api/backoffice/approvals/:id/approve', params: { id: 'a1' } }, ok)).toMatchObject({
      targetType: 'approval',
      targetId: 'a1',
    });
    const read = buildEntry(
      actor,
      {
        ...base,
        method: 'GET',
        query: { phone: '+237690000001' },
        tag: { name: 'people.search', read: { type: 'person', query: 'phone' } },
      },
      ok,
    );
    expect(read).toMatchObject({
      targetType: 'person',
      targetId: '+237690000001',
      actionName: 'people.search',
      details: { query: { phone: '+237690000001' } },
    });
    // a write's query is not kept
    expect(buildEntry(actor, { ...base, query: { a: '1' } }, ok).details).toEqual({});
  });

  it('without an outcome, builds the started record of a write: same fields, no outcome', () => {
    const entry = buildEntry(actor, { ...base, params: { customerId: 'c1' }, body: { reason: 'r' } });
    expect(entry).toMatchObject({ phase: 'started', outcomeStatus: null, outcomeCode: null, targetId: 'c1', reason: 'r' });
    expect(buildEntry(actor, base, { status: 403, payload: '{"code":"FORBIDDEN"}' })).toMatchObject({
      phase: 'outcome',
      outcomeStatus: 403,
      outcomeCode: 'FORBIDDEN',
    });
  });

  it('takes a target from the body when the marker names a field; a list is kept whole', () => {
    const one = { name: 'ledgerOperations.hold', target: { type: 'account' as const, body: 'accountId' } };
    expect(buildEntry(actor, { ...base, route: '/api/h', tag: one, body: { accountId: 'acc-1' } })).toMatchObject({
      targetType: 'account',
      targetId: 'acc-1',
    });
    const bulk = { name: 'approvals.decide', target: { type: 'approval' as const, body: 'ids' } };
    const many = buildEntry(actor, { ...base, route: '/api/d', tag: bulk, body: { ids: ['a', 'b', 7] } }, ok);
    expect(many).toMatchObject({ targetType: 'approval', targetId: null, details: { targets: ['a', 'b'] } });
    expect(buildEntry(actor, { ...base, route: '/api/d', tag: bulk, body: { ids: ['a'] } })).toMatchObject({ targetId: 'a' });
    expect(buildEntry(actor, { ...base, route: '/api/d', tag: bulk, body: 'not json' })).toMatchObject({ targetId: null });
    const correction = {
      name: 'ledgerOperations.submitCorrection',
      target: [
        { type: 'account' as const, body: 'accountId' },
        { type: 'transaction' as const, body: 'transactionId' },
        { type: 'transaction' as const, body: 'referenceId' },
      ],
    };
    const submit = (body: unknown) => buildEntry(actor, { ...base, route: '/api/c', tag: correction, body });
    expect(submit({ kind: 'ACCOUNT', accountId: 'acc-2' })).toMatchObject({ targetType: 'account', targetId: 'acc-2' });
    expect(submit({ kind: 'REVERSAL', referenceId: 'MMP123' })).toMatchObject({ targetType: 'transaction', targetId: 'MMP123' });
    expect(submit({})).toMatchObject({ targetType: 'transaction', targetId: null });
    // a hold named in the path
    expect(buildEntry(actor, { ...base, route: '/api/backoffice/ledger/holds/:holdId/release', params: { holdId: 'h1' } })).toMatchObject({
      targetType: 'hold',
      targetId: 'h1',
    });
  });

  it('keeps the id a successful write answered (what it created), unless it is the target', () => {
    expect(
      buildEntry(actor, { ...base, route: '/api/approvals' }, { status: 202, payload: '{"id":"req-9","status":"PENDING"}' }).details,
    ).toEqual({
      resultId: 'req-9',
    });
    const approve = { ...base, route: '/api/backoffice/approvals/:id/approve', params: { id: 'a1' } };
    expect(buildEntry(actor, approve, { status: 200, payload: '{"id":"a1"}' }).details).toEqual({ params: { id: 'a1' } });
    expect(resultIdOf(409, '{"id":"x"}')).toBeNull();
    expect(resultIdOf(200, '[{"id":"x"}]')).toBeNull();
    expect(resultIdOf(201, Buffer.from('{"id":"x"}'))).toBe('x');
  });

  it('reads the stable code of a refusal only', () => {
    expect(errorCodeOf(403, '{"code":"FORBIDDEN","message":"x"}')).toBe('FORBIDDEN');
    expect(errorCodeOf(200, '{"code":"FORBIDDEN"}')).toBeNull();
    expect(errorCodeOf(500, 'not json')).toBeNull();
    expect(errorCodeOf(400, Buffer.from('{"code":"VALIDATION_ERROR"}'))).toBe('VALIDATION_ERROR');
  });
});

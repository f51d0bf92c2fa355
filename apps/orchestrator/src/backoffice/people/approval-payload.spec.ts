import { AppException } from '@mm/errors';
import { CustomerUnfreezeHandler } from './customer-unfreeze.handler';
import { StaffRoleChangeHandler } from './staff-role-change.handler';

/** The payloads the engine stores for the people actions: exactly the fields, checked like a request body. */
describe('people approval payloads', () => {
  const unfreeze = new CustomerUnfreezeHandler({} as never, {} as never);
  const roleChange = new StaffRoleChangeHandler({} as never);
  const refusal = (run: () => unknown) => {
    try {
      run();
    } catch (error) {
      return [(error as AppException).code, (error as AppException).details?.errors?.map((e) => `${e.field} ${e.code}`)];
    }
    return undefined;
  };

  it('normalises a valid payload (user id in lower case)', () => {
    expect(unfreeze.parse({ userId: '5B0E1C8E-3F0A-4C55-9A57-1F1D3C0B9E21', reason: 'ok' })).toEqual({
      userId: '5b0e1c8e-3f0a-4c55-9a57-1f1d3c0b9e21',
      reason: 'ok',
    });
    expect(roleChange.parse({ userId: '5b0e1c8e-3f0a-4c55-9a57-1f1d3c0b9e21', role: 'AUDITOR' }).role).toBe('AUDITOR');
  });

  it.each([
    [null, ['payload.userId REQUIRED', 'payload.reason REQUIRED']],
    [{ userId: 'nope', reason: ' ' }, ['payload.userId INVALID_UUID', 'payload.reason INVALID_REASON']],
    [{ userId: '5b0e1c8e-3f0a-4c55-9a57-1f1d3c0b9e21', reason: 'x', extra: 1 }, ['payload.extra UNKNOWN_FIELD']],
    [{ userId: 7, reason: 'x'.repeat(501) }, ['payload.userId INVALID_UUID', 'payload.reason INVALID_REASON']],
  ])('refuses payload %# as VALIDATION_ERROR naming each field', (payload, fields) => {
    expect(refusal(() => unfreeze.parse(payload))).toEqual(['VALIDATION_ERROR', fields]);
  });

  it('a role outside the application roles is INVALID_ROLE', () => {
    expect(refusal(() => roleChange.parse({ userId: '5b0e1c8e-3f0a-4c55-9a57-1f1d3c0b9e21', role: 'ROOT' }))).toEqual([
      'VALIDATION_ERROR',
      ['payload.role INVALID_ROLE'],
    ]);
  });

  it('one live request per person, whatever its reason', () => {
    const a = unfreeze.parse({ userId: '5b0e1c8e-3f0a-4c55-9a57-1f1d3c0b9e21', reason: 'one' });
    const b = unfreeze.parse({ userId: '5b0e1c8e-3f0a-4c55-9a57-1f1d3c0b9e21', reason: 'two' });
    expect(unfreeze.dedupKey(a)).toBe(unfreeze.dedupKey(b));
  });
});

import { AppException } from '@mm/errors';
import { uuid } from './validators';

describe('uuid(field): the route parameter pipe shared by the admin, compliance and directory routes', () => {
  const meta = { type: 'param' as const, data: 'accountId' };

  it('passes a UUID through', async () => {
    await expect(uuid('accountId').transform('0b9e5a3c-2f4d-4c6e-8a1b-3d5f7e9a0c2b', meta)).resolves.toBe(
      '0b9e5a3c-2f4d-4c6e-8a1b-3d5f7e9a0c2b',
    );
  });

  it('refuses anything else with 400 VALIDATION_ERROR naming the field, per-field code INVALID_UUID', async () => {
    const error = await uuid('accountId')
      .transform('nope', meta)
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(error).toBeInstanceOf(AppException);
    expect(error).toMatchObject({
      code: 'VALIDATION_ERROR',
      status: 400,
      message: 'accountId must be a UUID',
      details: { errors: [{ field: 'accountId', code: 'INVALID_UUID', message: 'must be a UUID' }] },
    });
  });
});

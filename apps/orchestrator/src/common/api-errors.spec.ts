import { DECORATORS } from '@nestjs/swagger';
import { ApiAdminRoute } from './api-errors';

/** What ApiAdminRoute documents (read back from the swagger metadata it writes). */
describe('ApiAdminRoute', () => {
  const responsesOf = (decorator: MethodDecorator): Record<string, { description: string }> => {
    class Routes {
      route(): void {}
    }
    const descriptor = Object.getOwnPropertyDescriptor(Routes.prototype, 'route')!;
    decorator(Routes.prototype, 'route', descriptor);
    return Reflect.getMetadata(DECORATORS.API_RESPONSE, descriptor.value) as Record<string, { description: string }>;
  };

  it("documents the access guard's 401 and 403 answers", () => {
    const responses = responsesOf(ApiAdminRoute('customers.read'));
    expect(responses['401'].description).toContain('`TOKEN_EXPIRED`');
    expect(responses['403'].description).toBe(
      "`FORBIDDEN`: the caller lacks the `customers.read` permission; `ACCOUNT_DISABLED`: the caller's account is frozen",
    );
  });

  it("adds a route's own 403 answers after the guard's", () => {
    const responses = responsesOf(ApiAdminRoute('compliance.audit', '`OPERATOR_ROLE_REQUIRED`: the ledger refuses the role'));
    expect(responses['403'].description).toBe(
      "`FORBIDDEN`: the caller lacks the `compliance.audit` permission; `ACCOUNT_DISABLED`: the caller's account is frozen; " +
        '`OPERATOR_ROLE_REQUIRED`: the ledger refuses the role',
    );
  });
});

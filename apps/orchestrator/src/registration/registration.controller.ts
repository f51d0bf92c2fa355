import { Controller, HttpCode, Post } from '@nestjs/common';
import { AppException } from '@mm/errors';

/**
 * Spec 3 routes `/api/auth/register*` and `/api/auth/reset-pin/confirm` to the orchestrator's
 * multi-service workflows. The routes are owned here; the workflows (registration saga with
 * compensation, PIN reset) are a separate issue and answer 501 NOT_IMPLEMENTED until they land.
 */
@Controller('auth')
export class RegistrationController {
  @Post(['register', 'register/merchant', 'register/agent', 'register/admin', 'reset-pin/confirm'])
  @HttpCode(201)
  notYetAvailable(): never {
    throw new AppException('NOT_IMPLEMENTED', 'This workflow is not available yet');
  }
}

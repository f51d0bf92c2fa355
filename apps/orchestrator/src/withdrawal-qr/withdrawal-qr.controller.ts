import { Body, Controller, HttpCode, Inject, Post } from '@nestjs/common';
import { ApiBearerAuth, ApiCreatedResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { AppException } from '@mm/errors';
import { type AuthUser, CurrentUser, RequirePermission } from '../access/permissions';
import { ApiErrors } from '../common/api-errors';
import { PAYMENT_PARTIES, type PaymentPartiesPort } from '../payment-parties/payment-parties.port';
import { IssueWithdrawalQrDto, WithdrawalQrView } from './dto/withdrawal-qr.dto';
import { WithdrawalQrService } from './withdrawal-qr.service';

/** The customer's side of a cash-out without OTP: a fresh, single-use code shown to the agent. */
@ApiTags('intents')
@ApiBearerAuth()
@Controller('v1/withdrawal-qr')
export class WithdrawalQrController {
  constructor(
    private readonly qrs: WithdrawalQrService,
    @Inject(PAYMENT_PARTIES) private readonly parties: PaymentPartiesPort,
  ) {}

  @Post()
  @HttpCode(201)
  @RequirePermission('transactions.create')
  @ApiOperation({
    summary: 'Generate a withdrawal code (customers)',
    description:
      'The agent passes it as qrToken of a CASH_OUT: the customer is identified by it and no OTP is needed. Single use; void after WITHDRAWAL_QR_TTL_SEC (120 s by default).',
  })
  @ApiCreatedResponse({ type: WithdrawalQrView })
  @ApiErrors('VALIDATION_ERROR', 'UNAUTHORIZED', 'FORBIDDEN', 'INTENT_TYPE_NOT_ALLOWED', 'CUSTOMER_FROZEN', 'CURRENCY_NOT_HELD')
  async issue(@CurrentUser() user: AuthUser, @Body() dto: IssueWithdrawalQrDto): Promise<WithdrawalQrView> {
    const party = await this.parties.byUserId(user.userId);
    if (!party || (party.role !== 'CUSTOMER' && party.role !== 'MERCHANT')) {
      throw new AppException('INTENT_TYPE_NOT_ALLOWED', 'Only customers withdraw cash with a code');
    }
    if (party.status !== 'active') throw new AppException('CUSTOMER_FROZEN', 'A frozen or closed account cannot withdraw');
    const currency = dto.currency ?? 'XAF';
    if (!party.accounts[currency]) throw new AppException('CURRENCY_NOT_HELD', `You hold no ${currency} account`);
    return this.qrs.issue(user.userId, currency, dto.amount);
  }
}

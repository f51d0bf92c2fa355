import { Controller, Get } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiProperty, ApiTags } from '@nestjs/swagger';
import { type AuthUser, CurrentUser, RequirePermission } from '../../access/permissions';
import { ApiAdminRoute, ApiErrors } from '../../common/api-errors';
import { BalanceView, CustomerView, toCustomerView } from '../customers/customer.views';
import { WalletBalances } from '../customers/wallet-balances.service';
import { MERCHANT_CATEGORIES } from './merchant-categories';
import { MerchantsService } from './merchants.service';

export class MerchantSelfView {
  @ApiProperty({ format: 'uuid', example: 'ff222ead-b1a4-4b64-9afc-1be04ae8a52a' })
  merchantId: string;

  @ApiProperty({ example: 'Boulangerie du Centre' })
  businessName: string;

  @ApiProperty({ enum: MERCHANT_CATEGORIES, example: 'FOOD_AND_DRINK' })
  category: string;

  @ApiProperty({ type: CustomerView, description: 'the person behind the merchant: phone, status, wallet and accounts' })
  customer: CustomerView;

  @ApiProperty({ type: [BalanceView] })
  balances: BalanceView[];
}

/** The merchant side: a merchant reads its own record and wallet balances. */
@ApiTags('merchants')
@Controller('orchestrator/merchants')
export class MerchantsController {
  constructor(
    private readonly merchants: MerchantsService,
    private readonly balances: WalletBalances,
  ) {}

  @Get('me')
  @RequirePermission('merchant.read')
  @ApiAdminRoute('merchant.read')
  @ApiOperation({ summary: "The signed-in merchant's record and the balances of its wallet" })
  @ApiOkResponse({ type: MerchantSelfView })
  @ApiErrors('MERCHANT_NOT_FOUND', 'UPSTREAM_UNAVAILABLE')
  async me(@CurrentUser() user: AuthUser): Promise<MerchantSelfView> {
    const merchant = await this.merchants.getByUserId(user.userId);
    const { balances } = await this.balances.of(merchant.customer.walletId);
    return {
      merchantId: merchant.id,
      businessName: merchant.businessName,
      category: merchant.category,
      customer: toCustomerView(merchant.customer),
      balances,
    };
  }
}

import { Body, Controller, Get, Patch } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { type AuthUser, CurrentUser, RequirePermission } from '../../access/permissions';
import { ApiAdminRoute, ApiErrors } from '../../common/api-errors';
import { CustomerView, WalletBalancesView, toCustomerView } from '../customers/customer.views';
import { CustomersService } from '../customers/customers.service';
import { WalletBalances } from '../customers/wallet-balances.service';
import { StaffService } from '../staff/staff.service';
import { MeView, UpdateProfileDto } from './profile.dto';

/** The signed-in user's own record: who am I, my profile, my wallet. */
@ApiTags('profile')
@Controller('orchestrator/me')
export class ProfileController {
  constructor(
    private readonly customers: CustomersService,
    private readonly staff: StaffService,
    private readonly balances: WalletBalances,
  ) {}

  @Get()
  @RequirePermission('profile.read')
  @ApiAdminRoute('profile.read')
  @ApiOperation({ summary: 'The signed-in user: role, permissions, and the customer or staff record' })
  @ApiOkResponse({ type: MeView })
  async me(@CurrentUser() user: AuthUser): Promise<MeView> {
    const [customer, staff] = await Promise.all([this.customers.findByUserId(user.userId), this.staff.findByUserId(user.userId)]);
    return {
      userId: user.userId,
      role: user.role,
      permissions: [...user.permissions],
      ...(customer ? { customer: toCustomerView(customer) } : {}),
      ...(staff
        ? {
            staff: {
              id: staff.id,
              role: staff.role,
              phone: staff.phone,
              firstName: staff.firstName,
              lastName: staff.lastName,
              countryCode: staff.countryCode,
              createdAt: staff.createdAt,
            },
          }
        : {}),
    };
  }

  @Patch('profile')
  @RequirePermission('profile.update')
  @ApiAdminRoute('profile.update')
  @ApiOperation({ summary: 'Updates the own profile (names, email); the phone number is the identity and does not change here' })
  @ApiOkResponse({ type: CustomerView })
  @ApiErrors('VALIDATION_ERROR', 'CUSTOMER_NOT_FOUND')
  async update(@CurrentUser() user: AuthUser, @Body() body: UpdateProfileDto): Promise<CustomerView> {
    const customer = await this.customers.getByUserId(user.userId);
    return toCustomerView(await this.customers.updateProfile(customer.id, body));
  }

  @Get('wallet')
  @RequirePermission('profile.read')
  @ApiAdminRoute('profile.read')
  @ApiOperation({ summary: 'The own wallet: balance, available and reserved, per account (XAF and XOF)' })
  @ApiOkResponse({ type: WalletBalancesView })
  @ApiErrors('CUSTOMER_NOT_FOUND', 'UPSTREAM_UNAVAILABLE')
  async wallet(@CurrentUser() user: AuthUser): Promise<WalletBalancesView> {
    const customer = await this.customers.getByUserId(user.userId);
    return this.balances.of(customer.walletId);
  }
}

import { ApiProperty } from '@nestjs/swagger';
import { APP_ROLES, type AppRole } from '@mm/contracts';
import { CurrencyAccountsView } from '../../directory/directory.views';

export class RegistrationView {
  @ApiProperty({ format: 'uuid', description: 'the registration run (saga) id' })
  registrationId: string;

  @ApiProperty({ format: 'uuid', description: 'the user id (the access token subject)' })
  userId: string;

  @ApiProperty({ enum: APP_ROLES, example: 'CUSTOMER' })
  role: AppRole;

  @ApiProperty({ example: '+237690000001' })
  phone: string;

  @ApiProperty({ required: false, format: 'uuid' })
  customerId?: string;

  @ApiProperty({ required: false, format: 'uuid', description: 'administrators and staff' })
  staffId?: string;

  @ApiProperty({ required: false, format: 'uuid' })
  merchantId?: string;

  @ApiProperty({ required: false, format: 'uuid' })
  agentId?: string;

  @ApiProperty({ required: false, example: 'AG00012345' })
  agentCode?: string;

  @ApiProperty({ required: false, format: 'uuid' })
  walletId?: string;

  @ApiProperty({ required: false, type: CurrencyAccountsView, description: 'main ledger account per currency (XAF and XOF)' })
  accounts?: CurrencyAccountsView;

  @ApiProperty({ required: false, type: CurrencyAccountsView, description: 'agents: commission account per currency' })
  commissionAccounts?: CurrencyAccountsView;
}

export class PinResetView {
  @ApiProperty({ example: true })
  reset: true;
}

import { ApiProperty } from '@nestjs/swagger';
import { APP_ROLES, type AppRole } from '@mm/contracts';
import { CurrencyAccountsView } from '../../identities/directory/directory.views';

export class RegistrationView {
  @ApiProperty({ format: 'uuid', example: 'f137065a-5349-4841-b95d-86dc7bf472de', description: 'the registration run (saga) id' })
  registrationId: string;

  @ApiProperty({ format: 'uuid', example: '5b0e1c8e-3f0a-4c55-9a57-1f1d3c0b9e21', description: 'the user id (the access token subject)' })
  userId: string;

  @ApiProperty({ enum: APP_ROLES, example: 'CUSTOMER' })
  role: AppRole;

  @ApiProperty({ example: '+237690000001' })
  phone: string;

  @ApiProperty({
    required: false,
    format: 'uuid',
    example: '8a3f5c1e-7b2d-4f9a-a6e4-0c1b3d5f7a92',
    description: 'end users, merchants and agents: the customer record',
  })
  customerId?: string;

  @ApiProperty({
    required: false,
    format: 'uuid',
    example: '1be1a44c-46d6-4d37-a338-6ca27ef63e03',
    description: 'administrators and staff',
  })
  staffId?: string;

  @ApiProperty({ required: false, format: 'uuid', example: 'ff222ead-b1a4-4b64-9afc-1be04ae8a52a', description: 'merchants' })
  merchantId?: string;

  @ApiProperty({
    required: false,
    format: 'uuid',
    example: 'da8219c3-3e10-42d2-a03a-e9affb93aae3',
    description: 'agents and master agents',
  })
  agentId?: string;

  @ApiProperty({ required: false, example: 'AG00012345', description: 'agents and master agents' })
  agentCode?: string;

  @ApiProperty({
    required: false,
    format: 'uuid',
    example: '4ac4573d-9a58-44ce-92cf-f46fab963969',
    description: 'everyone but staff: the ledger wallet',
  })
  walletId?: string;

  @ApiProperty({ required: false, type: CurrencyAccountsView, description: 'main ledger account per currency (XAF and XOF)' })
  accounts?: CurrencyAccountsView;

  @ApiProperty({ required: false, type: CurrencyAccountsView, description: 'agents: commission account per currency' })
  commissionAccounts?: CurrencyAccountsView;

  @ApiProperty({
    required: false,
    enum: [true],
    example: true,
    description:
      'present (true) when this compliance officer or administrator was created at once by the bootstrap administrator because nobody else could have approved it (the platform’s first checker; STAFF_CREATE otherwise waits for a second person)',
  })
  bootstrapException?: true;
}

export class PinResetView {
  @ApiProperty({ example: true })
  reset: true;
}

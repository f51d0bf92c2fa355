import { ApiProperty } from '@nestjs/swagger';
import type { AccountsService } from '../users/accounts.service';

type IdpUserAnswer = Awaited<ReturnType<AccountsService['createIdpUser']>>;

/* OpenAPI shape of `POST /auth/internal/create-idp-user`, as `AccountsService.createIdpUser` returns it. */
export class IdpUserView implements IdpUserAnswer {
  @ApiProperty({ format: 'uuid', example: 'c4a7e2f0-1d3b-4e6a-9b8c-2f5d7e9a1b3c', description: 'the identity-provider user id' })
  idpUserId: string;

  @ApiProperty({ example: '+22507000001' })
  phone: string;

  @ApiProperty({ example: true, description: 'false when the same call had already created it (idempotent replay)' })
  created: boolean;
}

import { ApiProperty } from '@nestjs/swagger';
import type { AccountsService } from '../users/accounts.service';

type IdpUserAnswer = Awaited<ReturnType<AccountsService['createIdpUser']>>;

/* OpenAPI shape of `POST /auth/internal/create-idp-user`, as `AccountsService.createIdpUser` returns it. */
export class IdpUserView implements IdpUserAnswer {
  @ApiProperty({ format: 'uuid', description: 'the identity-provider user id' })
  idpUserId: string;

  @ApiProperty({ example: '+22507000001' })
  phone: string;

  @ApiProperty({ description: 'false when the same call had already created it (idempotent replay)' })
  created: boolean;
}

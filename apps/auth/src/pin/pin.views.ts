import { ApiProperty } from '@nestjs/swagger';
import type { ConsentProofAnswer } from '@mm/contracts';
import type { PinResetResult } from './pin-reset.service';
import type { PinService } from './pin.service';

type PinChanged = Awaited<ReturnType<PinService['change']>>;
type PinChecked = Awaited<ReturnType<PinService['check']>>;

/* OpenAPI shapes of the PIN answers; each class `implements` the type the code returns. */

export class PinCheckView implements PinChecked, Partial<ConsentProofAnswer> {
  @ApiProperty({ enum: [true], example: true, description: 'always true: a wrong PIN is an error answer' })
  valid: true;

  @ApiProperty({ required: false, description: 'only with `intentId`: the JWT to pass as `consentProof` to the ledger transition' })
  consentProof?: string;

  @ApiProperty({ required: false, format: 'date-time', description: 'only with `intentId`: redeem the consent proof before this' })
  consentProofExpiresAt?: string;
}

export class PinChangedView implements PinChanged {
  @ApiProperty({ enum: [true], example: true })
  changed: true;

  @ApiProperty({ type: 'integer', example: 1, description: 'how many other sessions were ended' })
  revokedSessions: number;
}

export class PinResetView implements PinResetResult {
  @ApiProperty({ enum: [true], example: true })
  reset: true;

  @ApiProperty({ format: 'uuid', description: 'the local user whose PIN was reset' })
  userId: string;
}

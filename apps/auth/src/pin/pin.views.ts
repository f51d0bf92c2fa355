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

  @ApiProperty({
    required: false,
    description: 'only with `intentId`: the JWT to pass as `consentProof` to the ledger transition',
    example:
      'eyJhbGciOiJFZERTQSIsImtpZCI6IlFneEEzb21PMlk1RWZwVkYiLCJ0eXAiOiJjb25zZW50K2p3dCJ9.eyJpbnRlbnRfaWQiOiIzZjFjMmE5ZS01YjdkLTRjMWUtOWEyZi02ZDhlMGI0YzdhMTUiLCJzdGVwIjoiUElOIiwiaXNzIjoibW0tYXV0aCIsImF1ZCI6Im1tLWxlZGdlciIsInN1YiI6IjViMGUxYzhlLTNmMGEtNGM1NS05YTU3LTFmMWQzYzBiOWUyMSIsImp0aSI6IjJhMWIwYzlkLThlN2YtNGE2Yi04YzVkLTRlM2YyYTFiMGM5ZCIsImlhdCI6MTc5MDAwMDAwMCwiZXhwIjoxNzkwMDAwMTIwfQ.IW_THpcIbKppwlzAFS_vfVQRXtak8RdZEaUYVWn3lyUtbU2X9nHERFCzBWNpJGg7aJRfRjuH-428uewvIyyjCQ',
  })
  consentProof?: string;

  @ApiProperty({
    required: false,
    format: 'date-time',
    example: '2026-09-21T14:15:20.000Z',
    description: 'only with `intentId`: redeem the consent proof before this',
  })
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

  @ApiProperty({ format: 'uuid', example: '5b0e1c8e-3f0a-4c55-9a57-1f1d3c0b9e21', description: 'the local user whose PIN was reset' })
  userId: string;
}

import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, Matches } from 'class-validator';
import { OptionalField } from '@mm/errors';

/** `GET /api/backoffice/audit-trail/verify`: where the walk starts. */
export class VerifyChainQueryDto {
  @ApiPropertyOptional({
    example: '1001',
    description:
      'walk from this seq instead of from the first record (the record before it is taken as it is; ' +
      'a seq above the head checks the head alone). Field code INVALID_SEQ',
  })
  @OptionalField()
  @Matches(/^[1-9]\d{0,15}$/, { context: { code: 'INVALID_SEQ' } })
  fromSeq?: string;

  @ApiPropertyOptional({
    enum: ['true', 'false'],
    description:
      'true (the default without fromSeq): walk every record from the first, wins over fromSeq; false: only the records after ' +
      'the last anchor (quicker on a long trail, blind to a deletion below that anchor). Field code INVALID_FULL',
  })
  @OptionalField()
  @IsIn(['true', 'false'], { context: { code: 'INVALID_FULL' } })
  full?: 'true' | 'false';
}

import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsString, MaxLength, MinLength } from 'class-validator';
import { OptionalField } from '@mm/errors';
import { IsInstant } from '@mm/platform';

export const FILING_CHANNELS = ['PHONE', 'ELECTRONIC'] as const;
export const SENDING_CHANNELS = ['ELECTRONIC', 'PAPER', 'HAND_DELIVERY'] as const;

/** `POST /api/v1/compliance/reports/:id/filing`: a suspicion report filed by phone or electronically. */
export class ReportFilingBody {
  @ApiProperty({ enum: FILING_CHANNELS, example: 'PHONE' })
  @IsIn(FILING_CHANNELS)
  channel: (typeof FILING_CHANNELS)[number];

  @ApiPropertyOptional({
    format: 'date-time',
    example: '2026-11-27T10:15:00.000Z',
    description: 'when it was filed (default: now); not in the future. The written confirmation is due 48 hours after it',
  })
  @OptionalField()
  @IsInstant()
  filedAt?: string;

  @ApiPropertyOptional({ minLength: 1, maxLength: 1000, example: 'Called the FIU duty line, spoke to the officer on duty' })
  @OptionalField()
  @IsString()
  @MinLength(1)
  @MaxLength(1000)
  note?: string;
}

/** `POST /api/v1/compliance/reports/:id/written-confirmation`. */
export class WrittenConfirmationBody {
  @ApiProperty({
    minLength: 1,
    maxLength: 200,
    example: 'ANIF/2026/11/0412',
    description: 'the reference of the letter or of its acknowledgement',
  })
  @IsString()
  @MinLength(1)
  @MaxLength(200)
  reference: string;

  @ApiPropertyOptional({
    format: 'date-time',
    example: '2026-11-28T09:00:00.000Z',
    description: 'when it was sent (default: now); not in the future, not before the filing',
  })
  @OptionalField()
  @IsInstant()
  sentAt?: string;

  @ApiPropertyOptional({ minLength: 1, maxLength: 1000, example: 'Registered letter, copy in the case file' })
  @OptionalField()
  @IsString()
  @MinLength(1)
  @MaxLength(1000)
  note?: string;
}

/** `POST /api/v1/compliance/reports/:id/sent`: a daily report sent to the financial intelligence unit. */
export class ReportSentBody {
  @ApiProperty({ enum: SENDING_CHANNELS, example: 'ELECTRONIC' })
  @IsIn(SENDING_CHANNELS)
  channel: (typeof SENDING_CHANNELS)[number];

  @ApiPropertyOptional({
    format: 'date-time',
    example: '2026-11-28T08:30:00.000Z',
    description: 'when it was sent (default: now); not in the future',
  })
  @OptionalField()
  @IsInstant()
  sentAt?: string;

  @ApiPropertyOptional({
    minLength: 1,
    maxLength: 200,
    example: 'ANIF-RECV-2026-11-28-07',
    description: "the receiver's acknowledgement, if any",
  })
  @OptionalField()
  @IsString()
  @MinLength(1)
  @MaxLength(200)
  reference?: string;
}

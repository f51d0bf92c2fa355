import { ApiProperty } from '@nestjs/swagger';
import { ArrayMaxSize, ArrayMinSize, IsArray, IsString, Length } from 'class-validator';
import { QR_PAYMENTS_MAX_TOKENS, type QrPaymentsAnswer, type QrPaymentsRequest } from '@mm/contracts';

export class QrPaymentsRequestDto implements QrPaymentsRequest {
  @ApiProperty({ type: [String], minItems: 1, maxItems: QR_PAYMENTS_MAX_TOKENS, example: ['QR8Jd2kP0aZ3xY7q'] })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(QR_PAYMENTS_MAX_TOKENS)
  @IsString({ each: true })
  @Length(1, 200, { each: true })
  qrTokens: string[];
}

export class QrPaymentsAnswerDto implements QrPaymentsAnswer {
  @ApiProperty({ type: [String], example: ['QR8Jd2kP0aZ3xY7q'], description: 'the tokens asked about that an intent paid (SUCCEEDED)' })
  paid: string[];

  @ApiProperty({
    type: [String],
    example: [],
    description: 'the tokens asked about with an intent not ended whose deadline has not passed',
  })
  open: string[];
}

import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiProperty, ApiTags } from '@nestjs/swagger';
import { ArrayMaxSize, ArrayMinSize, IsArray, IsString, Length } from 'class-validator';
import { QR_PAYMENTS_MAX_TOKENS, type QrPaymentsAnswer, type QrPaymentsRequest, type TransactionCompletedEvent } from '@mm/contracts';
import { InternalRoute } from '../access/permissions';
import { ApiErrors } from '../common/api-errors';
import { LedgerClient } from '../ledger-client/ledger.client';

class QrPaymentsBody implements QrPaymentsRequest {
  @ApiProperty({ type: [String], minItems: 1, maxItems: QR_PAYMENTS_MAX_TOKENS, example: ['QR8Jd2kP0aZ3xY7q'] })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(QR_PAYMENTS_MAX_TOKENS)
  @IsString({ each: true })
  @Length(1, 200, { each: true })
  qrTokens: string[];
}

class QrPaymentsView implements QrPaymentsAnswer {
  @ApiProperty({ type: [String], example: ['QR8Jd2kP0aZ3xY7q'], description: 'the tokens asked about that an intent paid' })
  paid: string[];

  @ApiProperty({ type: [String], example: [], description: 'the tokens asked about that an intent may still pay' })
  open: string[];

  @ApiProperty({
    type: 'array',
    items: { type: 'object', additionalProperties: true },
    example: [
      { eventId: '0b8f3c5e-7a52-4d0e-9a1f-3c2b1d4e5f60', type: 'transaction.completed', qrToken: 'QR8Jd2kP0aZ3xY7q', amount: 2500 },
    ],
    description: 'the ledger events of those payments (libs/contracts TransactionCompletedEvent)',
  })
  payments: TransactionCompletedEvent[];
}

/**
 * Internal (service key): partners asks, before it expires orders, whether the ledger paid their QR
 * tokens (libs/contracts qr-payments.ts). The orchestrator only relays: the answer is the ledger's.
 */
@ApiTags('qr payments (internal)')
@Controller('internal/qr-payments')
@InternalRoute()
export class InternalQrPaymentsController {
  constructor(private readonly ledger: LedgerClient) {}

  @Post()
  @HttpCode(200)
  @ApiOperation({ summary: 'Which of these QR tokens the ledger paid, and which it may still pay' })
  @ApiOkResponse({ type: QrPaymentsView })
  @ApiErrors('VALIDATION_ERROR', 'INVALID_SERVICE_CREDENTIALS', 'UPSTREAM_UNAVAILABLE', 'UPSTREAM_TIMEOUT')
  outcomes(@Body() body: QrPaymentsBody): Promise<QrPaymentsAnswer> {
    return this.ledger.qrPayments({ qrTokens: body.qrTokens });
  }
}

import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsInt, IsString, IsUUID, Matches, Max, MaxLength, Min, MinLength } from 'class-validator';
import { OptionalField } from '@mm/errors';
import { type Currency, INTENT_TYPES, type IntentType, SUPPORTED_CURRENCIES } from '@mm/contracts';

const E164 = /^\+[1-9]\d{7,14}$/;

/**
 * `POST /api/v1/intents`. Field faults answer 400 VALIDATION_ERROR with one `errors[]` entry per
 * field whose `code` is the specific one (INVALID_AMOUNT, INVALID_PHONE_FORMAT, …); a missing
 * idempotencyKey answers the top-level code IDEMPOTENCY_KEY_MISSING.
 */
export class CreateIntentDto {
  @ApiProperty({
    enum: INTENT_TYPES,
    example: 'TRANSFER',
    description:
      "TRANSFER: a customer pays another customer or a merchant (by phone, or a merchant order by qrToken). CASH_IN: an agent credits a customer from its float. CASH_OUT: an agent pays out cash and debits the customer (consent by the customer's withdrawal QR, or else by an OTP sent to the customer). Field code INVALID_INTENT_TYPE.",
  })
  @IsIn(INTENT_TYPES, { context: { code: 'INVALID_INTENT_TYPE' } })
  type: IntentType;

  @ApiProperty({
    description: 'whole amount in the smallest unit of the currency (XAF and XOF have none below the franc); field code INVALID_AMOUNT',
    example: 5000,
    minimum: 1,
    maximum: Number.MAX_SAFE_INTEGER,
  })
  @IsInt({ context: { code: 'INVALID_AMOUNT' } })
  @Min(1, { context: { code: 'INVALID_AMOUNT' } })
  @Max(Number.MAX_SAFE_INTEGER, { context: { code: 'INVALID_AMOUNT' } })
  amount: number;

  @ApiProperty({
    format: 'uuid',
    example: '6f1c2b9e-3d4a-4e5f-8a7b-9c0d1e2f3a4b',
    description:
      'UUID v4 chosen by the client, one per intended payment. Missing: 400 IDEMPOTENCY_KEY_MISSING. The same key with the same body answers the first response again; with another body 422 IDEMPOTENCY_KEY_CONFLICT. Field code INVALID_IDEMPOTENCY_KEY.',
  })
  @OptionalField()
  @IsUUID('4', { context: { code: 'INVALID_IDEMPOTENCY_KEY' } })
  idempotencyKey?: string;

  @ApiPropertyOptional({
    example: '+237690000002',
    pattern: '^\\+[1-9]\\d{7,14}$',
    description:
      'E.164 phone of the other party: the recipient of a TRANSFER, the customer of a CASH_IN or CASH_OUT. Not needed with qrToken. Field code INVALID_PHONE_FORMAT.',
  })
  @OptionalField()
  @IsString({ context: { code: 'INVALID_PHONE_FORMAT' } })
  @Matches(E164, { message: 'clientPhone must be in E.164 format (+237690000001)', context: { code: 'INVALID_PHONE_FORMAT' } })
  clientPhone?: string;

  @ApiPropertyOptional({
    example: '+237',
    description:
      'dialling prefix of clientPhone (`+237` or `237`), one of the CEMAC and UEMOA countries; must start clientPhone. Field codes INVALID_COUNTRY_CODE, COUNTRY_CODE_MISMATCH.',
  })
  @OptionalField()
  @IsString({ context: { code: 'INVALID_COUNTRY_CODE' } })
  @Matches(/^\+?[1-9]\d{0,3}$/, {
    message: 'clientCountryCode must be a dialling prefix such as +237',
    context: { code: 'INVALID_COUNTRY_CODE' },
  })
  clientCountryCode?: string;

  @ApiPropertyOptional({
    enum: SUPPORTED_CURRENCIES,
    default: 'XAF',
    example: 'XAF',
    description: "defaults to XAF; a QR payment takes the order's currency. Field code UNSUPPORTED_CURRENCY.",
  })
  @OptionalField()
  @IsIn(SUPPORTED_CURRENCIES, { context: { code: 'UNSUPPORTED_CURRENCY' } })
  currency?: Currency;

  @ApiPropertyOptional({
    example: 'wqr_3q2Xb9…',
    minLength: 1,
    maxLength: 200,
    description:
      "A scanned QR code instead of clientPhone. TRANSFER: the qrToken of a partner order (pays that merchant order; amount and currency must be the order's). CASH_OUT: the withdrawal code the customer generated (POST /api/v1/withdrawal-qr); single use, short-lived, and no OTP is then needed. Not accepted on CASH_IN. Field code INVALID_QR_TOKEN.",
  })
  @OptionalField()
  @IsString({ context: { code: 'INVALID_QR_TOKEN' } })
  @MinLength(1, { context: { code: 'INVALID_QR_TOKEN' } })
  @MaxLength(200, { context: { code: 'INVALID_QR_TOKEN' } })
  qrToken?: string;

  @ApiPropertyOptional({
    example: 'Rent June',
    maxLength: 140,
    description: 'label shown on both receipts; field code INVALID_DESCRIPTION',
  })
  @OptionalField()
  @IsString({ context: { code: 'INVALID_DESCRIPTION' } })
  @MaxLength(140, { context: { code: 'INVALID_DESCRIPTION' } })
  description?: string;
}

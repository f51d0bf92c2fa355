import { Controller, Get, Param, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiParam, ApiProperty, ApiPropertyOptional, ApiTags } from '@nestjs/swagger';
import { IsIn } from 'class-validator';
import { type Currency, type LedgerAccountStatement, SUPPORTED_CURRENCIES } from '@mm/contracts';
import { OptionalField } from '@mm/errors';
import { IsInstant } from '@mm/platform';
import { InternalRoute } from '../access/permissions';
import { uuid } from '../common/validators';
import { ApiErrors } from '../common/api-errors';
import { MerchantStatementsService } from './merchant-statements.service';

class LedgerPartQuery {
  @ApiProperty({ format: 'date-time', example: '2026-11-26T23:00:00.000Z', description: 'first instant, included' })
  @IsInstant({ context: { code: 'SETTLEMENT_PERIOD_INVALID' } })
  from: string;

  @ApiProperty({ format: 'date-time', example: '2026-11-27T23:00:00.000Z', description: 'first instant after the period' })
  @IsInstant({ context: { code: 'SETTLEMENT_PERIOD_INVALID' } })
  to: string;

  @ApiPropertyOptional({ enum: SUPPORTED_CURRENCIES, default: 'XAF', example: 'XAF' })
  @OptionalField()
  @IsIn(SUPPORTED_CURRENCIES, { context: { code: 'UNSUPPORTED_CURRENCY' } })
  currency?: Currency;
}

/**
 * Internal (service key): partners asks the ledger's statement of a connected merchant's account
 * here, having checked the connection itself, and adds its own orders (docs/statements.md).
 */
@ApiTags('statements (internal)')
@Controller('internal/statements')
@InternalRoute()
export class InternalStatementsController {
  constructor(private readonly statements: MerchantStatementsService) {}

  @Get('merchants/:merchantId')
  @ApiOperation({ summary: "The ledger's statement of the merchant's account in the currency over [from, to)" })
  @ApiParam({ name: 'merchantId', format: 'uuid' })
  @ApiOkResponse({
    description: 'the ledger answer (libs/contracts LedgerAccountStatement)',
    schema: { type: 'object', additionalProperties: true },
  })
  @ApiErrors(
    'VALIDATION_ERROR',
    'SETTLEMENT_PERIOD_INVALID',
    'SETTLEMENT_PERIOD_TOO_OLD',
    'MERCHANT_NOT_FOUND',
    'SETTLEMENT_CURRENCY_UNAVAILABLE',
    'SETTLEMENT_STATEMENT_TOO_LARGE',
    'SETTLEMENT_STATEMENT_TIMEOUT',
    'SERVICE_UNAVAILABLE',
    'INVALID_SERVICE_CREDENTIALS',
    'UPSTREAM_UNAVAILABLE',
    'UPSTREAM_TIMEOUT',
  )
  ledgerPart(
    @Param('merchantId', uuid('merchantId')) merchantId: string,
    @Query() query: LedgerPartQuery,
  ): Promise<LedgerAccountStatement> {
    return this.statements.ledgerPart(merchantId, query.currency ?? 'XAF', query.from, query.to);
  }
}

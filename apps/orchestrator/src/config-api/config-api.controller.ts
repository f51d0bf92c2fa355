import { Controller, Get } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiProperty, ApiTags } from '@nestjs/swagger';
import { SUPPORTED_CURRENCIES } from '@mm/contracts';
import { PublicRoute } from '../access/permissions';
import { ApiErrors } from '../common/api-errors';

class CurrencyView {
  @ApiProperty({ enum: SUPPORTED_CURRENCIES, example: 'XAF' })
  code: string;

  @ApiProperty({ description: 'digits after the decimal point (0: amounts are whole francs)', example: 0 })
  minorUnits: number;
}

class CurrenciesView {
  @ApiProperty({ type: [CurrencyView] })
  currencies: CurrencyView[];
}

/** `/api/config/*`: public client configuration (docs/fees-and-limits.md "Versioned configuration"). */
@ApiTags('config')
@Controller('config')
export class ConfigApiController {
  /** Currencies the platform holds; amounts are integers in the smallest unit (no minor unit). */
  @Get('currencies')
  @PublicRoute()
  @ApiOperation({ summary: 'Currencies the platform holds; every amount is an integer in the smallest unit' })
  @ApiOkResponse({ type: CurrenciesView })
  @ApiErrors('INTERNAL_ERROR')
  currencies(): CurrenciesView {
    return { currencies: SUPPORTED_CURRENCIES.map((code) => ({ code, minorUnits: 0 })) };
  }
}

import { Controller, Get } from '@nestjs/common';
import { SUPPORTED_CURRENCIES } from '@mm/contracts';

/** `/api/config/*`: public client configuration (the spec's configuration service). */
@Controller('config')
export class ConfigApiController {
  /** Currencies the platform holds; amounts are integers in the smallest unit (no minor unit). */
  @Get('currencies')
  currencies(): { currencies: Array<{ code: string; minorUnits: number }> } {
    return { currencies: SUPPORTED_CURRENCIES.map((code) => ({ code, minorUnits: 0 })) };
  }
}

import { Controller, Get, Param, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import type { MerchantDirectoryEntry } from '@mm/contracts';
import { AppException } from '@mm/errors';
import { InternalRoute } from '../../access/permissions';
import { ApiErrors } from '../../common/api-errors';
import { IsPhone, uuid } from '../../common/validators';
import { MerchantsService, type Merchant } from '../merchants/merchants.service';
import { MerchantDirectoryEntryView } from './directory.views';

class ByPhoneQuery {
  @IsPhone('the merchant phone number')
  phone: string;
}

/**
 * Internal lookups for other services (libs/contracts directory.ts), service key only. A merchant
 * whose registration has not finished (no wallet yet) is not in the directory.
 */
@ApiTags('directory (internal)')
@Controller('internal/directory')
@InternalRoute()
export class DirectoryController {
  constructor(private readonly merchants: MerchantsService) {}

  @Get('merchants/by-phone')
  @ApiOperation({ summary: 'The merchant registered with this phone number' })
  @ApiOkResponse({ type: MerchantDirectoryEntryView })
  @ApiErrors('VALIDATION_ERROR', 'MERCHANT_NOT_FOUND', 'INVALID_SERVICE_CREDENTIALS')
  async byPhone(@Query() query: ByPhoneQuery): Promise<MerchantDirectoryEntry> {
    return this.entry(await this.merchants.findByPhone(query.phone));
  }

  @Get('merchants/:merchantId')
  @ApiOperation({ summary: 'A merchant by id' })
  @ApiParam({ name: 'merchantId', format: 'uuid' })
  @ApiOkResponse({ type: MerchantDirectoryEntryView })
  @ApiErrors('VALIDATION_ERROR', 'MERCHANT_NOT_FOUND', 'INVALID_SERVICE_CREDENTIALS')
  async byId(@Param('merchantId', uuid('merchantId')) merchantId: string): Promise<MerchantDirectoryEntry> {
    return this.entry(await this.merchants.findById(merchantId.toLowerCase()));
  }

  private entry(merchant: Merchant | undefined): MerchantDirectoryEntry {
    if (!merchant?.customer.walletId) throw new AppException('MERCHANT_NOT_FOUND');
    return this.merchants.toDirectoryEntry(merchant);
  }
}

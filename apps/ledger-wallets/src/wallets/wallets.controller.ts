import { Body, Controller, Get, HttpCode, Param, Post, Query, Res, UseGuards } from '@nestjs/common';
import { ApiOkResponse, ApiResponse, ApiSecurity, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { ApiErrors, ServiceKeyGuard } from '@mm/platform';
import { UuidParamPipe } from '../common/uuid-param.pipe';
import type { AccountView } from './account-view';
import { CreateWalletDto } from './dto/create-wallet.dto';
import { CloseWalletDto, OwnerQueryDto, TechnicalAccountsQueryDto } from './dto/wallet-queries.dto';
import { AccountViewDto, ClosedWalletView, WalletViewDto } from './dto/wallet.views';
import { type WalletView, WalletsService } from './wallets.service';

@ApiTags('wallets')
@ApiSecurity('serviceKey')
@ApiErrors('INVALID_SERVICE_CREDENTIALS')
@Controller('internal')
@UseGuards(ServiceKeyGuard)
export class WalletsController {
  constructor(private readonly wallets: WalletsService) {}

  /** 201 when the wallet is new, 200 with the same wallet when it already existed. */
  @Post('wallets')
  @ApiResponse({ status: 201, description: 'the new wallet with its accounts (one per currency and account type)', type: WalletViewDto })
  @ApiResponse({ status: 200, description: 'the wallet the owner already had (any missing account added)', type: WalletViewDto })
  @ApiErrors('VALIDATION_ERROR')
  async create(@Body() dto: CreateWalletDto, @Res({ passthrough: true }) reply: FastifyReply): Promise<WalletView> {
    const { created, wallet } = await this.wallets.create(dto);
    reply.status(created ? 201 : 200);
    return wallet;
  }

  /**
   * Compensation of a registration saga: closes the owner's wallet if nothing ever moved through
   * it (409 WALLET_NOT_EMPTY otherwise). 200 `{ walletId, status: CLOSED | ABSENT }`, idempotent.
   */
  @Post('wallets/close')
  @ApiOkResponse({ type: ClosedWalletView })
  @ApiErrors('VALIDATION_ERROR', 'WALLET_NOT_EMPTY', 'CONCURRENCY_CONFLICT')
  @HttpCode(200)
  close(@Body() dto: CloseWalletDto): Promise<{ walletId: string | null; status: 'CLOSED' | 'ABSENT' }> {
    return this.wallets.closeUnused(dto.ownerType, dto.ownerId);
  }

  @Get('wallets')
  @ApiOkResponse({ type: WalletViewDto })
  @ApiErrors('VALIDATION_ERROR', 'WALLET_NOT_FOUND')
  byOwner(@Query() query: OwnerQueryDto): Promise<WalletView> {
    return this.wallets.getByOwner(query.ownerType, query.ownerId);
  }

  @Get('wallets/:id')
  @ApiOkResponse({ type: WalletViewDto })
  @ApiErrors('VALIDATION_ERROR', 'WALLET_NOT_FOUND')
  get(@Param('id', UuidParamPipe) id: string): Promise<WalletView> {
    return this.wallets.get(id);
  }

  @Get('accounts/:id')
  @ApiOkResponse({ type: AccountViewDto })
  @ApiErrors('VALIDATION_ERROR', 'ACCOUNT_NOT_FOUND')
  account(@Param('id', UuidParamPipe) id: string): Promise<AccountView> {
    return this.wallets.account(id);
  }

  @Get('technical-accounts')
  @ApiOkResponse({ type: [AccountViewDto], description: 'the platform accounts (owner SYSTEM), by type then currency' })
  @ApiErrors('VALIDATION_ERROR')
  technical(@Query() query: TechnicalAccountsQueryDto): Promise<AccountView[]> {
    return this.wallets.technicalAccounts(query.currency);
  }
}

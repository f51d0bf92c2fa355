import { Body, Controller, Get, Param, Post, Query, Res, UseGuards } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { ServiceKeyGuard } from '@mm/platform';
import { UuidParamPipe } from '../common/uuid-param.pipe';
import type { AccountView } from './account-view';
import { CreateWalletDto } from './dto/create-wallet.dto';
import { OwnerQueryDto, TechnicalAccountsQueryDto } from './dto/wallet-queries.dto';
import { type WalletView, WalletsService } from './wallets.service';

@Controller('internal')
@UseGuards(ServiceKeyGuard)
export class WalletsController {
  constructor(private readonly wallets: WalletsService) {}

  /** 201 when the wallet is new, 200 with the same wallet when it already existed. */
  @Post('wallets')
  async create(@Body() dto: CreateWalletDto, @Res({ passthrough: true }) reply: FastifyReply): Promise<WalletView> {
    const { created, wallet } = await this.wallets.create(dto);
    reply.status(created ? 201 : 200);
    return wallet;
  }

  @Get('wallets')
  byOwner(@Query() query: OwnerQueryDto): Promise<WalletView> {
    return this.wallets.getByOwner(query.ownerType, query.ownerId);
  }

  @Get('wallets/:id')
  get(@Param('id', UuidParamPipe) id: string): Promise<WalletView> {
    return this.wallets.get(id);
  }

  @Get('accounts/:id')
  account(@Param('id', UuidParamPipe) id: string): Promise<AccountView> {
    return this.wallets.account(id);
  }

  @Get('technical-accounts')
  technical(@Query() query: TechnicalAccountsQueryDto): Promise<AccountView[]> {
    return this.wallets.technicalAccounts(query.currency);
  }
}

import { Controller, Get, Param, UseGuards } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiParam, ApiSecurity, ApiTags } from '@nestjs/swagger';
import { LedgerChainAnchorView } from '@mm/contracts';
import { AppException } from '@mm/errors';
import { ApiErrors, ServiceKeyGuard } from '@mm/platform';
import { LedgerDb } from '../db/ledger-db.service';
import { ANCHOR_COLUMNS, type AnchorRow } from './chain-anchor-records';

/**
 * The chain's anchors as stored, for the orchestrator's witness (docs/ledger-chain.md#the-witness):
 * it keeps a copy of each newest anchor in its own database, where whoever owns the ledger's
 * database cannot reach it, and checks later that the ledger still holds it. Service key only: the
 * witness runs unattended, and an anchor is no secret (its MAC cannot be forged without the key).
 */
@ApiTags('ledger-chain')
@ApiSecurity({ serviceKey: [] })
@Controller('internal/ledger-chain/anchors')
@UseGuards(ServiceKeyGuard)
export class ChainAnchorsController {
  constructor(private readonly db: LedgerDb) {}

  @Get('latest')
  @ApiOperation({
    summary: 'The newest chain anchor',
    description: 'The anchor with the highest number, as stored (MAC in hex, key id). 404 before the first anchor.',
  })
  @ApiOkResponse({ type: LedgerChainAnchorView })
  @ApiErrors('LEDGER_CHAIN_ANCHOR_NOT_FOUND')
  async latest(): Promise<LedgerChainAnchorView> {
    const [row] = await this.db.query<AnchorRow>(`SELECT ${ANCHOR_COLUMNS} FROM ledger.chain_anchors ORDER BY n DESC LIMIT 1`);
    return view(row);
  }

  @Get(':n')
  @ApiOperation({ summary: 'One chain anchor by its number', description: 'The anchor as stored (MAC in hex, key id).' })
  @ApiParam({ name: 'n', schema: { type: 'integer', minimum: 1 }, example: 17, description: "the anchor's number" })
  @ApiOkResponse({ type: LedgerChainAnchorView })
  @ApiErrors('VALIDATION_ERROR', 'LEDGER_CHAIN_ANCHOR_NOT_FOUND')
  async one(@Param('n') n: string): Promise<LedgerChainAnchorView> {
    if (!/^[1-9][0-9]{0,15}$/.test(n)) throw new AppException('VALIDATION_ERROR', 'n must be a positive integer');
    const [row] = await this.db.query<AnchorRow>(`SELECT ${ANCHOR_COLUMNS} FROM ledger.chain_anchors WHERE n = $1`, [n]);
    return view(row);
  }
}

function view(row: AnchorRow | undefined): LedgerChainAnchorView {
  if (!row) throw new AppException('LEDGER_CHAIN_ANCHOR_NOT_FOUND');
  return {
    n: Number(row.n),
    at: new Date(row.at).toISOString(),
    accounts: Number(row.accounts),
    entries: Number(row.entries),
    mac: row.mac,
    keyId: row.key_id,
  };
}

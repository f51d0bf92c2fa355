import { ApiProperty } from '@nestjs/swagger';
import { IsInstant } from '@mm/platform';

/** `GET /v1/internal/accounts/:id/settlement-statement`: the entries booked in [from, to). */
export class SettlementStatementRangeQuery {
  @ApiProperty({ format: 'date-time', example: '2026-11-26T23:00:00.000Z', description: 'first instant, included' })
  @IsInstant({ context: { code: 'SETTLEMENT_PERIOD_INVALID' } })
  from: string;

  @ApiProperty({
    format: 'date-time',
    example: '2026-11-27T23:00:00.000Z',
    description: 'first instant after the period, excluded; after from, at most 32 days later',
  })
  @IsInstant({ context: { code: 'SETTLEMENT_PERIOD_INVALID' } })
  to: string;
}

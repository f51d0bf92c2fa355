import { ApiProperty } from '@nestjs/swagger';
import { SUPPORTED_CURRENCIES } from '@mm/contracts';
import { HOLD_STATUSES, type HoldStatus, type HoldView } from '../hold-view';

export class HoldPlacedView {
  @ApiProperty({ example: '5b0e1c8e-3f0a-4c55-9a57-1f1d3c0b9e21', description: 'the operator whose token placed it' })
  by: string;

  @ApiProperty({ type: [String], example: ['COMPLIANCE'] })
  roles: string[];

  @ApiProperty({
    type: String,
    nullable: true,
    example: 'a1b2c3d4-0000-4000-8000-00000000000a',
    description: 'who asked for it (a maker), if someone else',
  })
  requestedBy: string | null;

  @ApiProperty({ format: 'date-time', example: '2026-11-28T09:12:45.120Z' })
  at: string;
}

export class HoldReleasedView extends HoldPlacedView {
  @ApiProperty({ example: 'Case 4411 closed' })
  reason: string;
}

/** A named hold on part of an account's available balance. */
export class HoldViewDto implements HoldView {
  @ApiProperty({ format: 'uuid', example: '9f60a1b2-7b1d-4a8e-3c9f-1d2e3f4a5b6c' })
  id: string;

  @ApiProperty({ format: 'uuid', example: '2c9e4f7a-8b1d-4e3c-a5f6-7d8e9f0a1b2c' })
  accountId: string;

  @ApiProperty({ type: 'integer', minimum: 1, maximum: Number.MAX_SAFE_INTEGER, example: 25_000, description: 'smallest currency unit' })
  amount: number;

  @ApiProperty({ enum: SUPPORTED_CURRENCIES, example: 'XAF' })
  currency: string;

  @ApiProperty({ example: 'Suspected account takeover, case 4411' })
  reason: string;

  @ApiProperty({
    enum: HOLD_STATUSES,
    example: 'ACTIVE',
    description: 'ACTIVE: the amount is frozen on the account; RELEASED: available again',
  })
  status: HoldStatus;

  @ApiProperty({ type: HoldPlacedView })
  placed: HoldPlacedView;

  @ApiProperty({ type: HoldReleasedView, nullable: true })
  released: HoldReleasedView | null;
}

import { ApiProperty } from '@nestjs/swagger';
import { REFERENCE_ID_PATTERN } from '../execution/reference-id';
import { AccountViewDto } from '../wallets/dto/wallet.views';
import type { TestFundingResult } from './test-funding.service';
import { TEST_FUNDING_OPERATIONS, type TestFundingOperation } from './test-funding.dto';

/**
 * What `PUT /v1/accounts/{id}/balance/{operation}` answers. The class `implements` the service's
 * result type, so a field added there without its documentation fails to compile; money-range
 * compares real answers with this schema.
 */
export class TestFundingView implements TestFundingResult {
  @ApiProperty({ type: AccountViewDto, description: 'the account after the adjustment' })
  account: AccountViewDto;

  @ApiProperty({ enum: TEST_FUNDING_OPERATIONS, example: 'add' })
  operation: TestFundingOperation;

  @ApiProperty({ type: 'integer', minimum: 1, example: 5_000, description: 'smallest currency unit' })
  amount: number;

  @ApiProperty({ format: 'uuid', example: '6e5d4c3b-2a19-4f08-8e7d-6c5b4a392817', description: 'the adjustment transaction' })
  transactionId: string;

  @ApiProperty({
    pattern: REFERENCE_ID_PATTERN.source,
    example: 'MMPTX2611220A1B2C3',
    description: "the adjustment transaction's readable reference",
  })
  referenceId: string;
}

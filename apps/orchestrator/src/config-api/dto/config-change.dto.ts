import { ApiProperty } from '@nestjs/swagger';
import { IsInt, IsString, Max, MaxLength, Min, MinLength } from 'class-validator';

/**
 * What every change carries besides the new document: the version it was made from, and why. Each
 * section's owner extends it with its document (e.g. ChangePricingDto in pricing/pricing-section.ts).
 */
export class ConfigChangeDto {
  @ApiProperty({
    description: 'the active version the change was made from; if another change landed since, 409 CONFIG_VERSION_CONFLICT',
    example: 1,
    minimum: 1,
  })
  @IsInt()
  @Min(1)
  @Max(2_147_483_647)
  baseVersion: number;

  @ApiProperty({
    description: 'why the configuration changes (kept with the version)',
    example: 'Lower transfer fees from 1 March',
    minLength: 3,
    maxLength: 500,
  })
  @IsString()
  @MinLength(3)
  @MaxLength(500)
  reason: string;
}

import { ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsInt, IsString, Max, MaxLength, Min } from 'class-validator';
import { OptionalField } from '@mm/errors';

/** `?cursor=&limit=` of every list (newest first). */
export class ListQueryDto {
  @ApiPropertyOptional({
    description: 'nextCursor of the previous page',
    example: 'MjAyNi0xMS0yMlQxMDowMDowMC4wMDBafDdiMGU0ZjlhLTFiMmQtNGUzZi04YTViLTZjN2Q4ZTlmMGExYg',
    maxLength: 200,
  })
  @OptionalField()
  @IsString({ context: { code: 'INVALID_CURSOR' } })
  @MaxLength(200, { context: { code: 'INVALID_CURSOR' } })
  cursor?: string;

  @ApiPropertyOptional({ minimum: 1, maximum: 100, default: 20, example: 20 })
  @OptionalField()
  @Type(() => Number)
  @IsInt({ context: { code: 'INVALID_LIMIT' } })
  @Min(1, { context: { code: 'INVALID_LIMIT' } })
  @Max(100, { context: { code: 'INVALID_LIMIT' } })
  limit?: number;
}

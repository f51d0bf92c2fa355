import { ApiProperty } from '@nestjs/swagger';
import { ArrayMaxSize, ArrayMinSize, IsArray, IsString, IsUUID, MaxLength, MinLength } from 'class-validator';
import { ExpectedVersion } from '../../monitoring/cases/cases.dto';

/** `POST /api/v1/compliance/reports/suspicion`. */
export class SuspicionReportBody {
  @ApiProperty({
    format: 'uuid',
    example: '4c3b2a19-8d7e-4f6a-9b5c-0d1e2f3a4b5c',
    description: 'the compliance case the report is made from; it is closed by it',
  })
  @IsUUID()
  caseId: string;

  @ExpectedVersion('the report')
  expectedVersion: number;

  @ApiProperty({
    type: [String],
    minItems: 1,
    maxItems: 20,
    example: ['Cash deposits split below the reporting threshold', 'Funds moved out within minutes of arrival'],
    description: 'the grounds for suspicion, one per item (3 to 500 characters each)',
  })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(20)
  @IsString({ each: true })
  @MinLength(3, { each: true })
  @MaxLength(500, { each: true })
  grounds: string[];

  @ApiProperty({
    minLength: 20,
    maxLength: 10_000,
    example:
      'Between 20 and 26 November the subject received eleven cash-ins of 490 000 XAF at three agents and sent each sum on to the same recipient within the hour.',
    description: "the officer's account of the facts and why they are suspicious",
  })
  @IsString()
  @MinLength(20)
  @MaxLength(10_000)
  narrative: string;
}

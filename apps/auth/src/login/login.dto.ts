import { ApiProperty } from '@nestjs/swagger';
import { IsString, MaxLength } from 'class-validator';
import { IsPhone, IsPin } from '../common/validators';

export class LoginDto {
  @IsPhone()
  phone: string;

  @IsPin()
  pin: string;
}

export class RefreshDto {
  @ApiProperty({
    description: 'the single-use refresh token of the last login or refresh',
    maxLength: 200,
    example: 'rt1.v2PTjRavhZNsGu2_Ws8d-hSKVoEm1oW83-ebHY0bPY0',
  })
  @IsString()
  @MaxLength(200)
  refreshToken: string;
}

import { IsString, MaxLength } from 'class-validator';
import { IsPhone, IsPin } from '../common/validators';

export class LoginDto {
  @IsPhone()
  phone: string;

  @IsPin()
  pin: string;
}

export class RefreshDto {
  @IsString()
  @MaxLength(200)
  refreshToken: string;
}

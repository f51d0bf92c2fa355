import { IsOtpCode, IsPhone, IsPin } from '../common/validators';

export class LegacyRegisterDto {
  @IsPhone()
  phone: string;

  @IsPin()
  pin: string;
}

export class LegacyResetPinConfirmDto {
  @IsPhone()
  phone: string;

  @IsOtpCode()
  otp: string;

  @IsPin()
  newPin: string;
}

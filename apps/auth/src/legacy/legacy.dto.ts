import { IsOtpCode, IsPhone, IsPin } from '../common/validators';

export class LegacyResetPinConfirmDto {
  @IsPhone()
  phone: string;

  @IsOtpCode()
  otp: string;

  @IsPin()
  newPin: string;
}

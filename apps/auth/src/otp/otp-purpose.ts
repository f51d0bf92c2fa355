export const OTP_PURPOSES = ['LOGIN', 'PIN_RESET', 'INTENT'] as const;
export type OtpPurpose = (typeof OTP_PURPOSES)[number];

/** The purposes a client may ask a code for (send-otp, verify-otp, reset-pin/request). */
export const OTP_PURPOSES = ['LOGIN', 'PIN_RESET', 'INTENT'] as const;
export type OtpPurpose = (typeof OTP_PURPOSES)[number];

/**
 * Every purpose a stored code may have. STAFF_ENROLMENT: the code a staff login sends by itself to
 * the staff member's phone when it asks for a second-factor enrolment (SecondFactorService); no
 * route sends or verifies it on request.
 */
export type StoredOtpPurpose = OtpPurpose | 'STAFF_ENROLMENT';

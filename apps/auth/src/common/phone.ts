/** E.164: `+`, country code, up to 15 digits (spec README "Fixed across the platform"). */
export const E164 = /^\+[1-9]\d{7,14}$/;

/** For logs: never a full phone number (`+2376•••••01`). */
export function maskPhone(phone: string): string {
  if (phone.length <= 6) return '•••';
  return `${phone.slice(0, 5)}${'•'.repeat(phone.length - 7)}${phone.slice(-2)}`;
}

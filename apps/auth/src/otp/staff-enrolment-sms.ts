/**
 * The SMS of a staff second-factor enrolment code. It says what the code is for, and what to do
 * when the staff member did not ask for it: someone who knows their PIN is trying to enrol an
 * authenticator in their name. The code comes first, the only run of six digits. One SMS long.
 */
export function staffEnrolmentSms(code: string, validMinutes: number): string {
  return `${code} is your code to set up staff sign-in with an authenticator app. Valid ${validMinutes} min. Not you? Your PIN is known: tell your administrator.`;
}

/**
 * Dialling prefixes the platform serves: the six CEMAC countries (XAF) and the eight UEMOA
 * countries (XOF). `clientCountryCode` must be one of them and must start `clientPhone`.
 */
export const COUNTRY_PREFIXES = {
  '+237': 'CM',
  '+236': 'CF',
  '+235': 'TD',
  '+242': 'CG',
  '+240': 'GQ',
  '+241': 'GA',
  '+229': 'BJ',
  '+226': 'BF',
  '+225': 'CI',
  '+245': 'GW',
  '+223': 'ML',
  '+227': 'NE',
  '+221': 'SN',
  '+228': 'TG',
} as const;

/**
 * `+237`, or `237` without the plus: the canonical `+237`, or undefined when not served. Anything
 * but a string (a null the validation should have refused) is not served either, never a TypeError.
 */
export function normaliseCountryCode(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const canonical = value.startsWith('+') ? value : `+${value}`;
  return canonical in COUNTRY_PREFIXES ? canonical : undefined;
}

/** For SMS and receipts shown to the other party: never the full number. */
export function maskPhone(phone: string): string {
  if (phone.length <= 6) return '•••';
  return `${phone.slice(0, 5)}${'•'.repeat(phone.length - 7)}${phone.slice(-2)}`;
}

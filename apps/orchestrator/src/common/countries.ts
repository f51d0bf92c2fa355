/**
 * Countries the platform serves: the CEMAC (XAF) and UEMOA (XOF) members, ISO 3166-1 alpha-2.
 * Extend by appending.
 */
export const SUPPORTED_COUNTRIES = ['CM', 'CF', 'TD', 'CG', 'GQ', 'GA', 'BJ', 'BF', 'CI', 'GW', 'ML', 'NE', 'SN', 'TG'] as const;
export type CountryCode = (typeof SUPPORTED_COUNTRIES)[number];

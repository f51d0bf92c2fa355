/** What a merchant sells, for statements and risk rules. Extend by appending. */
export const MERCHANT_CATEGORIES = [
  'RETAIL',
  'FOOD_AND_DRINK',
  'TRANSPORT',
  'HEALTH',
  'EDUCATION',
  'UTILITIES',
  'SERVICES',
  'ONLINE',
  'OTHER',
] as const;
export type MerchantCategory = (typeof MERCHANT_CATEGORIES)[number];

export const ROLES = ['CUSTOMER', 'MERCHANT', 'AGENT', 'ADMIN'] as const;
export type Role = (typeof ROLES)[number];

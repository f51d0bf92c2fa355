export const PARTNER_MODES = ['live', 'test'] as const;

/** The independently versioned parts of the money-flow configuration (the store's closed set of keys). */
export const CONFIG_SECTIONS = ['pricing', 'limits', 'risk', 'monitoring'] as const;
export type ConfigSection = (typeof CONFIG_SECTIONS)[number];

/**
 * The document type of each section. Empty here on purpose: the folder owning a section adds its
 * entry by module augmentation (see pricing/pricing-section.ts), so this store knows the section
 * names but none of their shapes or rules.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface SectionDocuments {}

/** One version of one section, as stored: who changed it, when and why. */
export interface ConfigVersion<S extends ConfigSection = ConfigSection> {
  section: S;
  version: number;
  document: SectionDocuments[S];
  createdBy: string;
  reason: string;
  createdAt: string;
}

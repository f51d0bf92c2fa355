import type { components } from '../../api/schema';

export type Section = components['schemas']['ConfigVersionView']['section'];
export type VersionSummary = components['schemas']['ConfigVersionSummaryView'];
export type Difference = components['schemas']['ConfigDifferenceView'];

/** Every configuration section in words: a section added to the API fails the type-check until named here. */
export const SECTION_LABELS: Record<Section, string> = {
  pricing: 'Pricing (fees and commissions)',
  limits: 'Limits',
  risk: 'Risk thresholds',
  monitoring: 'Transaction monitoring rules',
};

export const SECTIONS = Object.keys(SECTION_LABELS) as Section[];

/** A configuration value as text: absent is shown as such, objects and arrays as compact JSON. */
export function valueText(value: unknown): string {
  if (value === null || value === undefined) return '(absent)';
  return typeof value === 'object' ? JSON.stringify(value) : String(value);
}

import type { FieldError } from '@mm/errors';
import { type LimitsDocument, limitsDocumentErrors } from '../limits/limits-document';
import { type MonitoringDocument, monitoringDocumentErrors } from '../monitoring/rules/monitoring-document';
import { type PricingDocument, pricingDocumentErrors } from '../pricing/pricing-document';
import { type RiskDocument, riskDocumentErrors } from '../risk/risk-document';

/** The independently versioned parts of the money-flow configuration. */
export const CONFIG_SECTIONS = ['pricing', 'limits', 'risk', 'monitoring'] as const;
export type ConfigSection = (typeof CONFIG_SECTIONS)[number];

export interface SectionDocuments {
  pricing: PricingDocument;
  limits: LimitsDocument;
  risk: RiskDocument;
  monitoring: MonitoringDocument;
}

/** Rules across fields of a section, run after the DTO's own validation. */
export const SECTION_RULES: { [S in ConfigSection]: (doc: SectionDocuments[S]) => FieldError[] } = {
  pricing: pricingDocumentErrors,
  limits: limitsDocumentErrors,
  risk: riskDocumentErrors,
  monitoring: monitoringDocumentErrors,
};

/** One version of one section, as stored: who changed it, when and why. */
export interface ConfigVersion<S extends ConfigSection = ConfigSection> {
  section: S;
  version: number;
  document: SectionDocuments[S];
  createdBy: string;
  reason: string;
  createdAt: string;
}

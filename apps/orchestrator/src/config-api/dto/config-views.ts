import { ApiProperty } from '@nestjs/swagger';
import { CONFIG_SECTIONS, type ConfigSection, type ConfigVersion } from '../config-sections';

/** The public view of the section in force: no staff identity, no internal note (owners add the typed document). */
export class ActiveConfigView {
  @ApiProperty({ description: 'version number; quotes and decisions record the version they used', example: 3 })
  version: number;

  @ApiProperty({ description: 'when this version took effect', example: '2026-11-20T08:00:00.000Z', format: 'date-time' })
  effectiveFrom: string;
}

/** A version as stored, for administrators: who, when, why. */
export class ConfigVersionSummaryView {
  @ApiProperty({ enum: CONFIG_SECTIONS, example: 'pricing' })
  section: ConfigSection;

  @ApiProperty({ example: 2 })
  version: number;

  @ApiProperty({ description: 'user id of the administrator (or system:migration)', example: '3f1c9a4e-2b7d-4c1e-9f0a-6d5e4c3b2a19' })
  createdBy: string;

  @ApiProperty({ example: 'Lower transfer fees from 1 March' })
  reason: string;

  @ApiProperty({ format: 'date-time', example: '2026-11-20T08:00:00.000Z' })
  createdAt: string;
}

export class ConfigVersionView extends ConfigVersionSummaryView {
  @ApiProperty({
    description: 'the section document (shape of the section: pricing, limits or risk)',
    oneOf: [
      { $ref: '#/components/schemas/PricingDocumentDto' },
      { $ref: '#/components/schemas/LimitsDocumentDto' },
      { $ref: '#/components/schemas/RiskDocumentDto' },
    ],
  })
  // the schemas are named, not imported: their classes belong to the sections' folders
  document: object;
}

/** A value of a configuration document: any JSON value. */
const ANY_VALUE = {
  nullable: true,
  // a configuration value is a scalar, an object or a list; objects and lists are free-form here
  oneOf: [
    { type: 'string' },
    { type: 'number' },
    { type: 'boolean' },
    { type: 'object', additionalProperties: true },
    { type: 'array', items: { oneOf: [{ type: 'string' }, { type: 'number' }, { type: 'object', additionalProperties: true }] } },
  ],
};

export class ConfigDifferenceView {
  @ApiProperty({ description: 'where in the document, array positions in brackets', example: 'fees.TRANSFER.XAF[0].rateBps' })
  path: string;

  @ApiProperty({ description: 'the value in `from` (null: absent)', example: 100, ...ANY_VALUE })
  before: unknown;

  @ApiProperty({ description: 'the value in `to` (null: absent)', example: 150, ...ANY_VALUE })
  after: unknown;
}

export class ConfigDiffView {
  @ApiProperty({ enum: CONFIG_SECTIONS, example: 'pricing' })
  section: ConfigSection;

  @ApiProperty({ type: ConfigVersionSummaryView })
  from: ConfigVersionSummaryView;

  @ApiProperty({ type: ConfigVersionSummaryView })
  to: ConfigVersionSummaryView;

  @ApiProperty({ type: [ConfigDifferenceView], description: 'every changed value, in path order; empty when the documents are equal' })
  changes: ConfigDifferenceView[];
}

export class ConfigHistoryView {
  @ApiProperty({ type: [ConfigVersionSummaryView], description: 'newest first' })
  versions: ConfigVersionSummaryView[];

  @ApiProperty({
    description: 'pass as `before` to read older versions; null at the first version',
    nullable: true,
    type: Number,
    example: null,
  })
  nextBefore: number | null;
}

export function toActiveView<S extends ConfigSection>(
  v: ConfigVersion<S>,
): { version: number; effectiveFrom: string; document: ConfigVersion<S>['document'] } {
  return { version: v.version, effectiveFrom: v.createdAt, document: v.document };
}

import { limitsDocumentErrors } from '../limits/limits-document';
import { pricingDocumentErrors } from '../pricing/pricing-document';
import { monitoringDocumentErrors } from '../monitoring/rules/monitoring-document';
import { LIMITS_CHANGE_EXAMPLE, MONITORING_CHANGE_EXAMPLE, PRICING_CHANGE_EXAMPLE } from './config-examples';

describe('configuration change examples of the OpenAPI document', () => {
  it('are complete sections the server accepts', () => {
    expect(pricingDocumentErrors(PRICING_CHANGE_EXAMPLE.document)).toEqual([]);
    expect(limitsDocumentErrors(LIMITS_CHANGE_EXAMPLE.document)).toEqual([]);
    expect(monitoringDocumentErrors(MONITORING_CHANGE_EXAMPLE.document)).toEqual([]);
  });
});

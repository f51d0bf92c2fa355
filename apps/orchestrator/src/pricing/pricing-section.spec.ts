import { pricingDocumentErrors } from './pricing-document';
import { PRICING_CHANGE_EXAMPLE } from './pricing-section';

describe('the pricing change example of the OpenAPI document', () => {
  it('is a complete section the server accepts', () => {
    expect(pricingDocumentErrors(PRICING_CHANGE_EXAMPLE.document)).toEqual([]);
  });
});

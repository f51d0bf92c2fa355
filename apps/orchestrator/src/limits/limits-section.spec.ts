import { limitsDocumentErrors } from './limits-document';
import { LIMITS_CHANGE_EXAMPLE } from './limits-section';

describe('the limits change example of the OpenAPI document', () => {
  it('is a complete section the server accepts', () => {
    expect(limitsDocumentErrors(LIMITS_CHANGE_EXAMPLE.document)).toEqual([]);
  });
});

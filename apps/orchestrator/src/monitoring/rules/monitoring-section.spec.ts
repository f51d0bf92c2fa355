import { monitoringDocumentErrors } from './monitoring-document';
import { MONITORING_CHANGE_EXAMPLE } from './monitoring-section';

describe('the monitoring change example of the OpenAPI document', () => {
  it('is a complete section the server accepts', () => {
    expect(monitoringDocumentErrors(MONITORING_CHANGE_EXAMPLE.document)).toEqual([]);
  });
});

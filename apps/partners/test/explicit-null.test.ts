import { type PartnersHarness, startPartners } from './support/partners-harness';

/**
 * An explicit null is not "left out" (docs/architecture.md "Processes and ports"): on an optional
 * field it is refused with the field's code, never taken as the default.
 */
describe('partners: null on an optional field', () => {
  let h: PartnersHarness;

  beforeAll(async () => {
    h = await startPartners();
  });
  afterAll(() => h.close());

  it('creating an integration with testWebhookUrl null → 400, INVALID_WEBHOOK_URL on the field, nothing created', async () => {
    const body = { name: 'Null Test', technicalContactEmail: 'tech@pos.example', webhookUrl: h.receiver.url, createdBy: 'admin-test' };
    const res = await h.internal('POST', '/internal/partners/integrations', { ...body, testWebhookUrl: null });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('VALIDATION_ERROR');
    expect(res.body.errors).toEqual([expect.objectContaining({ field: 'testWebhookUrl', code: 'INVALID_WEBHOOK_URL' })]);
    const { rows } = await h.admin.query(`SELECT count(*)::int AS n FROM partners.integrations WHERE name = $1`, [body.name]);
    expect(rows[0].n).toBe(0);
  });

  it('rotating a key with overlapSeconds null → 400, INVALID_OVERLAP on the field, no key issued', async () => {
    const created = await h.integration();
    const integrationId = created.integration.id;
    const keyId = created.apiKeys.live.id;
    const res = await h.internal('POST', `/internal/partners/integrations/${integrationId}/keys/${keyId}/rotate`, {
      overlapSeconds: null,
      createdBy: 'admin-test',
    });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('VALIDATION_ERROR');
    expect(res.body.errors).toEqual([expect.objectContaining({ field: 'overlapSeconds', code: 'INVALID_OVERLAP' })]);
    const keys = await h.internal('GET', `/internal/partners/integrations/${integrationId}/keys`);
    expect(keys.body).toHaveLength(2);

    // The same request without the field rotates with the default overlap.
    const rotated = await h.internal('POST', `/internal/partners/integrations/${integrationId}/keys/${keyId}/rotate`, {
      createdBy: 'admin-test',
    });
    expect(rotated.status).toBe(201);
  });
});

import { validateWebhookUrl } from './webhook-url';

describe('validateWebhookUrl', () => {
  it('accepts absolute http(s) URLs and normalises them', () => {
    expect(validateWebhookUrl('https://pos.example.com/hooks?x=1', true)).toBe('https://pos.example.com/hooks?x=1');
    expect(validateWebhookUrl('http://127.0.0.1:8080/hooks', false)).toBe('http://127.0.0.1:8080/hooks');
  });

  it.each(['ftp://example.com/x', '/relative', 'not a url', 'https://user:pw@example.com/', 'https://example.com/#frag'])(
    'rejects %s',
    (url) => {
      expect(() => validateWebhookUrl(url, false)).toThrow(expect.objectContaining({ code: 'INVALID_WEBHOOK_URL' }));
    },
  );

  it('requires https when asked (production)', () => {
    expect(() => validateWebhookUrl('http://pos.example.com/hooks', true)).toThrow(
      expect.objectContaining({ code: 'INVALID_WEBHOOK_URL' }),
    );
  });
});

import { IsInt, Min } from 'class-validator';
import { BaseConfig, ConfigValidationError, EnvBoolean, loadConfig } from './config';
import { IsBoolean } from 'class-validator';

class SampleConfig extends BaseConfig {
  @IsInt()
  @Min(1)
  RETRIES: number = 3;

  @EnvBoolean()
  @IsBoolean()
  FEATURE: boolean = true;
}

const KEY = 'k'.repeat(32);

describe('loadConfig', () => {
  it('applies defaults and converts strings to typed values', () => {
    const config = loadConfig(SampleConfig, {
      INTERNAL_SERVICE_KEY: KEY,
      PORT: '4100',
      RETRIES: '5',
      FEATURE: 'false',
      LOG_PRETTY: 'true',
    });
    expect(config).toBeInstanceOf(SampleConfig);
    expect(config.PORT).toBe(4100);
    expect(config.RETRIES).toBe(5);
    expect(config.FEATURE).toBe(false);
    expect(config.LOG_PRETTY).toBe(true);
    expect(config.HOST).toBe('127.0.0.1');
  });

  it('ignores variables it does not declare', () => {
    const config = loadConfig(SampleConfig, { INTERNAL_SERVICE_KEY: KEY, PATH: '/usr/bin' }) as unknown as Record<string, unknown>;
    expect(config.PATH).toBeUndefined();
  });

  it('fails fast naming every bad variable, never echoing a value', () => {
    const secret = 'too-short-secret';
    let error: unknown;
    try {
      loadConfig(SampleConfig, { INTERNAL_SERVICE_KEY: secret, PORT: 'eighty', FEATURE: 'maybe' });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigValidationError);
    const message = (error as Error).message;
    expect(message).toMatch(/INTERNAL_SERVICE_KEY/);
    expect(message).toMatch(/PORT/);
    expect(message).toMatch(/FEATURE/);
    expect(message).not.toContain(secret);
  });

  it('requires the service key', () => {
    expect(() => loadConfig(SampleConfig, {})).toThrow(/INTERNAL_SERVICE_KEY/);
  });

  it('refuses a malformed INTERNAL_TRUSTED_CALLERS at boot, naming the variable and never its value', () => {
    const value = `orchestrator:${'f'.repeat(63)}`;
    expect(() => loadConfig(SampleConfig, { INTERNAL_SERVICE_KEY: KEY, INTERNAL_TRUSTED_CALLERS: value })).toThrow(
      /INTERNAL_TRUSTED_CALLERS is malformed: entry 1/,
    );
    try {
      loadConfig(SampleConfig, { INTERNAL_SERVICE_KEY: KEY, INTERNAL_TRUSTED_CALLERS: value });
    } catch (error) {
      expect((error as Error).message).not.toContain('f'.repeat(63));
    }
  });
});

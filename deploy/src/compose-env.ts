import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CORE_SCHEMA, load, mergeTag } from 'js-yaml';
import { values as defaultValues, type Values } from '../values';
import type { AppName } from './apps';

/**
 * docker-compose.yml says which variables each app is given; the Kubernetes deployment gives each app
 * the same names, so the two cannot drift apart. A value is a credential when values.ts lists it under
 * `secrets` (it then comes from the app's Secret); every other one goes to the app's ConfigMap with
 * compose's default, unless values.ts sets it. A variable compose requires (`${X:?…}`) or builds from
 * other variables must be classified in values.ts, or rendering stops: a new credential is never
 * written into a ConfigMap by accident.
 */
interface ComposeFile {
  services: Record<string, { environment?: Record<string, string | number | boolean | null> }>;
}

export const ROOT = join(__dirname, '..', '..');

export function readCompose(path = join(ROOT, 'docker-compose.yml')): ComposeFile {
  return load(readFileSync(path, 'utf8'), { schema: CORE_SCHEMA.withTags(mergeTag) }) as ComposeFile;
}

export interface AppEnv {
  /** ConfigMap data: plain settings */
  config: Record<string, string>;
  /** keys of the app's Secret */
  secrets: string[];
}

const DEFAULTED = /^\$\{([A-Z0-9_]+):-([^${}]*)\}$/;

export function appEnv(app: AppName, compose: ComposeFile = readCompose(), values: Values = defaultValues): AppEnv {
  const environment = compose.services[app]?.environment;
  if (!environment) throw new Error(`docker-compose.yml has no environment for ${app}`);
  const secrets: string[] = values.secrets[app];
  const overrides: Record<string, string> = { ...values.config.all, ...values.config[app] };
  const config: Record<string, string> = {};
  for (const [name, raw] of Object.entries(environment)) {
    if (secrets.includes(name)) continue;
    if (name in overrides) {
      config[name] = overrides[name];
      continue;
    }
    const text = raw === null ? '' : String(raw);
    if (!text.includes('$')) {
      config[name] = text;
      continue;
    }
    const defaulted = DEFAULTED.exec(text);
    if (!defaulted) {
      throw new Error(
        `${app}: ${name} is required by docker-compose.yml or built from other variables; list it in deploy/values.ts (secrets or config)`,
      );
    }
    config[name] = defaulted[2];
  }
  for (const name of [...secrets, ...Object.keys(overrides)]) {
    if (!(name in environment)) throw new Error(`${app}: deploy/values.ts names ${name}, which docker-compose.yml does not give it`);
  }
  return { config, secrets };
}

/** The migration's variables in compose: all of them credentials. */
export function migrateEnvNames(compose: ComposeFile = readCompose()): string[] {
  return Object.keys(compose.services.migrate?.environment ?? {});
}

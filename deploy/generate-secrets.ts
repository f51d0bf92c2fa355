/**
 * Prints every Secret of deploy/values.ts as YAML, with fresh random values (deploy/src/secrets.ts):
 *   OPS_SERVICE_KEY_SHA256=… SMS_PROVIDER_TOKEN=… ACCESS_KEY_ID=… ACCESS_SECRET_KEY=… \
 *     node -r @swc-node/register deploy/generate-secrets.ts > secrets.yaml
 *   kubectl apply -f secrets.yaml && shred -u secrets.yaml
 * Run it once per environment: running it again makes new passwords and keys (the database roles
 * follow at the next migration, but a new WEBHOOK_SECRET_ENCRYPTION_KEY or PIN_PEPPER would make
 * stored data unreadable). Never commit its output.
 */
import { dump } from 'js-yaml';
import { values } from './values';
import { generateSecrets } from './src/secrets';

const secrets = generateSecrets(values, process.env);
process.stdout.write(secrets.map((s) => dump(s.toJSON(), { noRefs: true, lineWidth: -1 })).join('---\n'));
const empty = secrets.flatMap((s) =>
  Object.entries(s.stringData ?? {})
    .filter(([, v]) => v === '')
    .map(([k]) => `${s.metadata!.name}/${k}`),
);
if (empty.length > 0) process.stderr.write(`left empty (set them in the environment to fill them): ${empty.join(', ')}\n`);

/**
 * Refreshes the CloudNativePG schemas kept here from a local clone of the operator and of its
 * Barman Cloud plugin (no network at test time):
 *   node -r @swc-node/register deploy/schemas/extract.ts <cloudnative-pg git dir> <plugin-barman-cloud git dir>
 * Keeps only each CRD's served openAPIV3Schema, without the descriptions (they are most of the size
 * and play no part in validation), and records the commits in sources.json.
 */
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { load } from 'js-yaml';

interface Crd {
  spec: { group: string; names: { kind: string }; versions: { name: string; served: boolean; schema: { openAPIV3Schema: unknown } }[] };
}

const SOURCES = [
  {
    repoArg: 2,
    repository: 'https://github.com/cloudnative-pg/cloudnative-pg',
    files: ['clusters', 'poolers', 'scheduledbackups'].map((k) => `config/crd/bases/postgresql.cnpg.io_${k}.yaml`),
  },
  {
    repoArg: 3,
    repository: 'https://github.com/cloudnative-pg/plugin-barman-cloud',
    files: ['config/crd/bases/barmancloud.cnpg.io_objectstores.yaml'],
  },
];

function withoutDescriptions(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(withoutDescriptions);
  if (node === null || typeof node !== 'object') return node;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    // a property may itself be called "description": only drop the annotation (a string)
    if (key === 'description' && typeof value === 'string') continue;
    out[key] = withoutDescriptions(value);
  }
  return out;
}

const record: Record<string, unknown> = {};
for (const source of SOURCES) {
  const gitDir = process.argv[source.repoArg];
  if (!gitDir) throw new Error('usage: extract.ts <cloudnative-pg git dir> <plugin-barman-cloud git dir>');
  const git = (...args: string[]): string => execFileSync('git', ['--git-dir', gitDir, ...args], { encoding: 'utf8', maxBuffer: 64 << 20 });
  const commit = git('rev-parse', 'HEAD').trim();
  for (const file of source.files) {
    const crd = load(git('show', `HEAD:${file}`)) as Crd;
    const version = crd.spec.versions.find((v) => v.served)!;
    const name = `${crd.spec.group}_${version.name}_${crd.spec.names.kind}.json`;
    writeFileSync(join(__dirname, name), `${JSON.stringify(withoutDescriptions(version.schema.openAPIV3Schema))}\n`);
    record[name] = { repository: source.repository, commit, file, licence: 'Apache-2.0' };
  }
}
writeFileSync(join(__dirname, 'sources.json'), `${JSON.stringify(record, null, 2)}\n`);

/**
 * `npm run deploy:render`: writes deploy/kubernetes/ from deploy/values.ts (and docker-compose.yml's
 * variables). The output is committed, so a reviewer reads the YAML a cluster would get;
 * test/deploy/manifests.test.ts fails when it is not what this would write.
 */
import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { format } from 'prettier';
import { renderDocuments, toYaml } from './src/render';

const OUT = join(__dirname, 'kubernetes');

async function main(): Promise<void> {
  const files = renderDocuments();
  rmSync(OUT, { recursive: true, force: true });
  for (const [path, documents] of Object.entries(files)) {
    mkdirSync(dirname(join(OUT, path)), { recursive: true });
    // formatted as `prettier --check` (npm run lint) expects it
    writeFileSync(join(OUT, path), await format(toYaml(documents), { parser: 'yaml', singleQuote: true, printWidth: 140 }));
  }
  const count = readdirSync(OUT, { recursive: true }).filter((p) => String(p).endsWith('.yaml')).length;
  process.stdout.write(`deploy/kubernetes: ${count} files\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`deploy:render failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});

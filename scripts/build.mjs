#!/usr/bin/env node
// Compiles apps, libs, migrations, tools, bench and test fixtures to dist/ with swc (path aliases
// rewritten), then bundles the operators' console (apps/console, esbuild) into dist/console.
// `--if-needed` skips the build when dist/ is newer than every source file.
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readdirSync, statSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const dirs = ['apps', 'libs', 'migrations', 'tools', 'bench', 'test', 'examples'].filter((d) => existsSync(join(root, d)));
const stamp = join(root, 'dist', '.build-stamp');

function newest(dir) {
  let max = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, entry.name);
    if (entry.isDirectory()) max = Math.max(max, newest(p));
    else if (/\.(ts|tsx|css|mjs|sql)$/.test(entry.name)) max = Math.max(max, statSync(p).mtimeMs);
  }
  return max;
}

if (process.argv.includes('--if-needed') && existsSync(stamp)) {
  const sources = Math.max(...dirs.map((d) => newest(join(root, d))), statSync(join(root, '.swcrc')).mtimeMs);
  if (statSync(stamp).mtimeMs >= sources) process.exit(0);
}

rmSync(join(root, 'dist'), { recursive: true, force: true });
execFileSync(
  process.execPath,
  [
    join(root, 'node_modules/@swc/cli/bin/swc.js'),
    ...dirs,
    '-d',
    'dist',
    '--config-file',
    '.swcrc',
    '--ignore',
    '**/*.spec.ts,apps/console/**',
    '--quiet',
  ],
  {
    cwd: root,
    stdio: 'inherit',
  },
);
// The repeatable SQL of each service (apps/<service>/sql/*.sql, tools/repeatable-sql.ts): swc copies
// no .sql, and `node dist/tools/migrate.js` reads them from dist/apps/<service>/sql.
for (const app of readdirSync(join(root, 'apps'))) {
  const from = join(root, 'apps', app, 'sql');
  if (!existsSync(from)) continue;
  const to = join(root, 'dist', 'apps', app, 'sql');
  mkdirSync(to, { recursive: true });
  for (const name of readdirSync(from)) if (name.endsWith('.sql')) copyFileSync(join(from, name), join(to, name));
}
// The console is a browser bundle, not a Node app: esbuild, not swc (apps/console/build.mjs).
const { buildConsole } = await import('../apps/console/build.mjs');
await buildConsole(join(root, 'dist', 'console'));
execFileSync('touch', [stamp]);

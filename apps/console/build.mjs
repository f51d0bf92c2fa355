// Bundles the operators' console (src/main.tsx, React + Mantine) with esbuild into
// <outdir>/assets/*-<hash>.{js,css} and writes <outdir>/index.html pointing at them. No inline
// script: the gateway serves the page under a Content-Security-Policy with script-src 'self'.
import { mkdirSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const here = fileURLToPath(new URL('.', import.meta.url));

export async function buildConsole(outdir) {
  const assets = join(outdir, 'assets');
  mkdirSync(assets, { recursive: true });
  const result = await build({
    entryPoints: [join(here, 'src/main.tsx')],
    bundle: true,
    minify: true,
    sourcemap: 'linked',
    format: 'esm',
    target: ['es2022'],
    jsx: 'automatic',
    outdir: assets,
    entryNames: '[name]-[hash]',
    assetNames: '[name]-[hash]',
    loader: { '.woff2': 'file', '.svg': 'file', '.png': 'file' },
    define: { 'process.env.NODE_ENV': '"production"' },
    metafile: true,
    logLevel: 'warning',
  });
  const outputs = Object.keys(result.metafile.outputs).map((file) => basename(file));
  const script = outputs.find((file) => file.endsWith('.js'));
  const style = outputs.find((file) => file.endsWith('.css'));
  writeFileSync(
    join(outdir, 'index.html'),
    `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>Operators' console</title>
    ${style ? `<link rel="stylesheet" href="/console/assets/${style}" />` : ''}
    <script type="module" src="/console/assets/${script}"></script>
  </head>
  <body>
    <noscript>The operators' console needs JavaScript.</noscript>
    <div id="root"></div>
  </body>
</html>
`,
  );
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  await buildConsole(process.argv[2] ?? join(here, '../../dist/console'));
}

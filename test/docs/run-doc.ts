/**
 * Runs the commands of documents against a platform you started yourself, as test/docs/docs.test.ts
 * does against the one it starts:
 *
 *   node -r @swc-node/register test/docs/run-doc.ts docs/mobile-api.md [more.md …]
 *
 * with the variables of the README's walkthrough exported (the same as for `npm start`), and
 * MM_PORT_BASE when the platform is not on 3000. Prints each block's output; exits 1 on a failure.
 */
import { join } from 'node:path';
import { platformPorts, runDocument } from './doctest';

async function main(): Promise<void> {
  const files = process.argv.slice(2);
  if (files.length === 0) throw new Error('usage: run-doc.ts <document.md>…');
  const root = join(__dirname, '..', '..');
  const base = Number(process.env.MM_PORT_BASE ?? 3000);
  const env = Object.fromEntries(Object.entries(process.env).filter((e): e is [string, string] => e[1] !== undefined));
  let failed = false;
  for (const file of files) {
    const run = await runDocument(file, {
      root,
      ports: platformPorts(base, Number(process.env.DOCTEST_RECEIVER_PORT ?? 8080)),
      env,
      dist: join(root, 'dist'),
      timeoutMs: 120_000,
    });
    for (const result of run.session.blocks) process.stdout.write(`── ${file}:${result.block.line}\n${result.stdout}\n`);
    process.stdout.write(run.ok ? `✔ ${file}: ${run.blocks.length} blocks\n` : `✖ ${file}\n${run.report}\n`);
    failed ||= !run.ok;
  }
  process.exitCode = failed ? 1 : 0;
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
});

import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';

/**
 * Code explains a rule by pointing at the docs section that states it, written as the file and the
 * heading: `docs/ledger.md "Idempotency"`. A reader of the repository has the docs and nothing else,
 * so two things are checked over every tracked file:
 * - no reference to a numbered specification or ticket (those documents are not in the repository);
 * - every `<file>.md "<heading>"` citation names a Markdown file of the repository and a heading it
 *   has, word for word (a renamed heading breaks its citations here, not in a reader's hands).
 */
const ROOT = resolve(__dirname, '..');
const tracked = execFileSync('git', ['ls-files', '-z'], { cwd: ROOT, encoding: 'utf8' }).split('\0').filter(Boolean);
const BINARY = /\.(png|jpe?g|gif|ico|svg|woff2?|ttf|pdf|gz|zip)$/;
const text = (file: string) => readFileSync(resolve(ROOT, file), 'utf8');

/** Headings of every tracked Markdown file, by path. */
const headings = new Map(
  tracked
    .filter((f) => f.endsWith('.md'))
    .map((f) => [f, new Set([...text(f).matchAll(/^#{1,6}\s+(.*?)\s*$/gm)].map((m) => m[1]))] as const),
);

/** A path as cited: from the repository's root, or the end of one (`partners.md`, `deploy/README.md`). */
function markdownFiles(cited: string): string[] {
  if (headings.has(cited)) return [cited];
  return [...headings.keys()].filter((f) => f.endsWith(`/${cited}`));
}

describe('citations in code', () => {
  const code = tracked.filter((f) => !f.endsWith('.md') && f !== 'package-lock.json' && !BINARY.test(f));

  it('name the docs section of a rule, never a numbered specification or ticket', () => {
    const numbered = /\b(?:issue|spec)\s+#?\d+/gi;
    const found = code.flatMap((file) =>
      text(file)
        .split('\n')
        .flatMap((line, i) => (line.match(numbered) ?? []).map((hit) => `${file}:${i + 1}: ${hit}`)),
    );
    expect(found).toEqual([]);
  });

  it('name a Markdown file of the repository and a heading it has, word for word', () => {
    const citation = /((?:[\w.-]+\/)*[\w.-]+\.md)\s+["“]([^"”\n]+)["”]/g;
    let checked = 0;
    const broken: string[] = [];
    for (const file of [...code, ...headings.keys()]) {
      for (const [, cited, heading] of text(file).matchAll(citation)) {
        checked++;
        const files = markdownFiles(cited);
        if (files.length === 0) broken.push(`${file}: ${cited} is not a Markdown file of the repository`);
        else if (!files.some((f) => headings.get(f)!.has(heading))) broken.push(`${file}: ${cited} has no heading "${heading}"`);
      }
    }
    expect(broken).toEqual([]);
    // The pattern still finds the citations the code is full of (a pattern matching nothing passes nothing).
    expect(checked).toBeGreaterThan(200);
  });
});

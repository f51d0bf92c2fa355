import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';

/**
 * Code explains a rule by pointing at the docs section that states it, written as the file and the
 * heading: `docs/ledger.md "Idempotency"`. A reader of the repository has the docs and nothing else,
 * so two things are checked over every tracked file:
 * - no reference to a numbered specification or ticket (those documents are not in the repository),
 *   in code and in the Markdown alike;
 * - every `<file>.md "<heading>"` citation (also `<file>.md, "<a>" and "<b>"`, across a wrapped
 *   comment line, or with escaped quotes inside JSON) names a Markdown file of the repository and
 *   headings it has, word for word but for backticks (a renamed heading breaks its citations here,
 *   not in a reader's hands).
 */
const ROOT = resolve(__dirname, '..');
const tracked = execFileSync('git', ['ls-files', '-z'], { cwd: ROOT, encoding: 'utf8' })
  .split('\0')
  .filter((f) => f && existsSync(resolve(ROOT, f)));
const BINARY = /\.(png|jpe?g|gif|ico|svg|woff2?|ttf|pdf|gz|zip)$/;
const text = (file: string) => readFileSync(resolve(ROOT, file), 'utf8');

/** A heading as compared: backticks aside (`"completed_at"` names the heading `` `completed_at` ``). */
const plain = (heading: string) => heading.replace(/`/g, '').trim();

/** Headings of a Markdown text, fenced code blocks left out (a `#` there is a shell comment). */
function headingsOf(markdown: string): Set<string> {
  const found = new Set<string>();
  let fenced = false;
  for (const line of markdown.split('\n')) {
    if (/^\s*(```|~~~)/.test(line)) fenced = !fenced;
    const heading = !fenced && /^#{1,6}\s+(.*?)\s*$/.exec(line);
    if (heading) found.add(plain(heading[1]));
  }
  return found;
}

/** Headings of every tracked Markdown file, by path. */
const headings = new Map(tracked.filter((f) => f.endsWith('.md')).map((f) => [f, headingsOf(text(f))] as const));

/** A path as cited: from the repository's root, or the end of one (`partners.md`, `deploy/README.md`). */
function markdownFiles(cited: string): string[] {
  if (headings.has(cited)) return [cited];
  return [...headings.keys()].filter((f) => f.endsWith(`/${cited}`));
}

describe('citations in code', () => {
  const code = tracked.filter((f) => !f.endsWith('.md') && f !== 'package-lock.json' && !BINARY.test(f));

  it('name the docs section of a rule, never a numbered specification or ticket', () => {
    const numbered = /\b(?:issue|spec)\s+#?\d+/gi;
    const found = [...code, ...headings.keys()].flatMap((file) =>
      text(file)
        .split('\n')
        .flatMap((line, i) => (line.match(numbered) ?? []).map((hit) => `${file}:${i + 1}: ${hit}`)),
    );
    expect(found).toEqual([]);
  });

  it('name a Markdown file of the repository and a heading it has, word for word', () => {
    // Between the file and its first heading, and between headings: a comma, "and", spaces, or a
    // line break into the next comment line (` * `, `// `, `-- `, `# `).
    const gap = String.raw`(?:[,;:]|\s|\band\b|\n\s*(?:\*|\/\/|--|#)(?!\S))*`;
    const quoted = String.raw`\\?["“]([^"”\n\\]+)\\?["”]`;
    const citation = new RegExp(String.raw`((?:[\w.-]+\/)*[\w.-]+\.md)(?:${gap}${quoted})+`, 'g');
    const oneHeading = new RegExp(quoted, 'g');
    let checked = 0;
    const broken: string[] = [];
    for (const file of [...code, ...headings.keys()]) {
      for (const match of text(file).matchAll(citation)) {
        const cited = match[1];
        const files = markdownFiles(cited);
        for (const [, heading] of match[0].slice(cited.length).matchAll(oneHeading)) {
          checked++;
          if (files.length === 0) broken.push(`${file}: ${cited} is not a Markdown file of the repository`);
          else if (!files.some((f) => headings.get(f)!.has(plain(heading)))) broken.push(`${file}: ${cited} has no heading "${heading}"`);
        }
      }
    }
    expect(broken).toEqual([]);
    // The pattern still finds the citations the code is full of (a pattern matching nothing passes nothing).
    expect(checked).toBeGreaterThan(200);
  });
});

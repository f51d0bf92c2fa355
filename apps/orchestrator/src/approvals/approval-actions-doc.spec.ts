import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { APPROVAL_ACTIONS } from './approval-handler';

describe('docs/approvals.md', () => {
  it('has a row for every action of the engine, and none for an action that does not exist', () => {
    const doc = readFileSync(join(__dirname, '..', '..', '..', '..', 'docs', 'approvals.md'), 'utf8');
    const table = doc.slice(doc.indexOf('## The actions'), doc.indexOf('## Who may do what'));
    const rows = [...table.matchAll(/^\| `([A-Z_]+)`/gm)].map((m) => m[1]);
    expect([...rows].sort()).toEqual([...APPROVAL_ACTIONS].sort());
  });
});

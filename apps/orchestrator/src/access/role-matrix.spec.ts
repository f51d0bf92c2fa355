import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { APP_ROLES } from '@mm/contracts';
import { PERMISSIONS } from './permission-list';
import { MATRIX_BEGIN, MATRIX_END, renderRoleMatrix } from './role-matrix-doc';
import { ROLE_PERMISSIONS, permissionsOf, primaryRole, rolesWith } from './role-matrix';

/** A markdown table without its layout (Prettier pads cells and separator dashes). */
function cells(table: string): string[][] {
  return table
    .trim()
    .split('\n')
    .map((line) =>
      line
        .trim()
        .replace(/^\||\|$/g, '')
        .split('|')
        .map((cell) =>
          cell
            .trim()
            .replace(/^:-+:$/, ':-:')
            .replace(/^-+$/, '-'),
        ),
    );
}

describe('role × permission matrix', () => {
  it('docs/roles.md shows exactly the matrix of the code', () => {
    const doc = readFileSync(join(__dirname, '../../../../docs/roles.md'), 'utf8');
    const start = doc.indexOf(MATRIX_BEGIN);
    const end = doc.indexOf(MATRIX_END);
    expect(start).toBeGreaterThanOrEqual(0);
    expect(end).toBeGreaterThan(start);
    expect(cells(doc.slice(start + MATRIX_BEGIN.length, end))).toEqual(cells(renderRoleMatrix()));
  });

  it('names only known permissions, each role at least profile.read, and every permission is held by someone', () => {
    for (const role of APP_ROLES) {
      expect(ROLE_PERMISSIONS[role].every((p) => (PERMISSIONS as readonly string[]).includes(p))).toBe(true);
      expect(ROLE_PERMISSIONS[role]).toContain('profile.read');
    }
    for (const permission of PERMISSIONS) expect(rolesWith([permission]).length).toBeGreaterThan(0);
  });

  it('separates duties: staff never start money movements, customers never manage users or read other customers', () => {
    for (const role of ['SUPPORT', 'COMPLIANCE', 'ADMIN'] as const) expect(ROLE_PERMISSIONS[role]).not.toContain('transactions.create');
    for (const role of ['CUSTOMER', 'MERCHANT', 'AGENT', 'MASTER_AGENT'] as const) {
      for (const p of ['users.manage', 'customers.read', 'customers.freeze', 'config.manage', 'partners.manage'] as const) {
        expect(ROLE_PERMISSIONS[role]).not.toContain(p);
      }
    }
    expect(rolesWith(['users.manage'])).toEqual(['ADMIN']);
  });

  it('unknown roles grant nothing; the primary role follows APP_ROLES order', () => {
    expect(permissionsOf(['ROOT'])).toEqual([]);
    expect(primaryRole(['ROOT'])).toBeUndefined();
    expect(primaryRole(['ADMIN', 'CUSTOMER'])).toBe('CUSTOMER');
    expect(permissionsOf(['AGENT', 'MERCHANT'])).toEqual(expect.arrayContaining(['agents.read', 'merchant.read']));
  });
});

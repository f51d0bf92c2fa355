import { APP_ROLES } from '@mm/contracts';
import { PERMISSIONS } from './permission-list';
import { ROLE_LABELS, ROLE_PERMISSIONS } from './role-matrix';

/**
 * docs/roles.md's matrix, rendered from ROLE_PERMISSIONS (role-matrix.spec.ts fails when the
 * document and the table differ, and prints the text to paste).
 */
export function renderRoleMatrix(): string {
  const header = `| permission | ${APP_ROLES.map((r) => `${r}<br>(${ROLE_LABELS[r]})`).join(' | ')} |`;
  const rule = `|---|${APP_ROLES.map(() => ':-:').join('|')}|`;
  const rows = PERMISSIONS.map((p) => `| \`${p}\` | ${APP_ROLES.map((r) => (ROLE_PERMISSIONS[r].includes(p) ? '✔' : '')).join(' | ')} |`);
  return [header, rule, ...rows].join('\n');
}

export const MATRIX_BEGIN = '<!-- role-matrix:begin (generated from apps/orchestrator/src/access/role-matrix.ts) -->';
export const MATRIX_END = '<!-- role-matrix:end -->';

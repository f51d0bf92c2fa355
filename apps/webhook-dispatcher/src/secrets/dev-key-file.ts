import { randomBytes } from 'node:crypto';
import { chmodSync, linkSync, mkdirSync, readFileSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

/** A development encryption key kept in a file, and whether this boot created it. */
export interface DevKey {
  key: Buffer;
  path: string;
  created: boolean;
  /** the file is readable by others than its owner (it was made or changed by hand) */
  looselyProtected: boolean;
}

const KEY_BYTES = 32;

/**
 * The development key in `file` (base64 of 32 bytes), created on first use with mode 0600 in a
 * 0700 folder: secrets stored in one run must still decrypt after a restart, as the embedded
 * database's data stays in `.data/` between runs. The file is written under a temporary name and
 * linked into place, so two processes starting together both end with the one key that won, and no
 * reader ever sees a half-written file. A file that holds anything but a 32-byte key is refused,
 * never replaced: replacing it would make every stored secret unusable.
 */
export function loadOrCreateDevKey(file: string): DevKey {
  const path = resolve(file);
  const existing = readKeyFile(path);
  if (existing) return { ...existing, path, created: false };
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  const temporary = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  writeFileSync(temporary, `${randomBytes(KEY_BYTES).toString('base64')}\n`, { mode: 0o600, flag: 'wx' });
  // A umask cannot widen a mode, but an unusual one could narrow it below what we can read back.
  chmodSync(temporary, 0o600);
  let created = true;
  try {
    linkSync(temporary, path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    created = false; // another process created it first: use its key
  } finally {
    unlinkSync(temporary);
  }
  const stored = readKeyFile(path);
  if (!stored) throw new Error(`${path} vanished while it was being created`);
  return { ...stored, path, created };
}

function readKeyFile(path: string): { key: Buffer; looselyProtected: boolean } | undefined {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  const key = Buffer.from(text.trim(), 'base64');
  if (!/^[A-Za-z0-9+/]{43}=$/.test(text.trim()) || key.length !== KEY_BYTES) {
    throw new Error(
      `${path} does not hold a 32-byte base64 key: restore it, or delete it to start over (every webhook secret stored with the old key is then unusable)`,
    );
  }
  return { key, looselyProtected: (statSync(path).mode & 0o077) !== 0 };
}

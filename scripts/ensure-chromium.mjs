#!/usr/bin/env node
// The console's browser tests drive Debian's Chromium (playwright-core, no browser download: only
// the npm registry and Debian's packages are reachable here). `npm test` calls this first; it
// installs the `chromium` package when /usr/bin/chromium is missing and says plainly when it cannot.
import { existsSync } from 'node:fs';
import { spawnSync } from 'node:child_process';

export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

export function ensureChromium() {
  if (existsSync(CHROMIUM_PATH)) return 0;
  const root = typeof process.getuid === 'function' && process.getuid() === 0;
  const apt = (args) =>
    spawnSync(root ? 'apt-get' : 'sudo', root ? args : ['-n', 'apt-get', ...args], {
      stdio: 'inherit',
      env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
    });
  console.log(`[ensure-chromium] ${CHROMIUM_PATH} is missing: installing Debian's chromium package (about a minute)`);
  let result = apt(['install', '-y', '--no-install-recommends', 'chromium']);
  if (result.status !== 0) {
    // a machine whose package lists are stale or empty: refresh them once and try again
    apt(['update']);
    result = apt(['install', '-y', '--no-install-recommends', 'chromium']);
  }
  if (result.status !== 0 || !existsSync(CHROMIUM_PATH)) {
    console.error(
      `[ensure-chromium] could not install chromium (apt-get exit ${result.status}). Install it with ` +
        '`apt-get install -y chromium`, or point CHROMIUM_PATH at a Chromium binary.',
    );
    return 1;
  }
  return 0;
}

if (import.meta.url === `file://${process.argv[1]}`) process.exit(ensureChromium());

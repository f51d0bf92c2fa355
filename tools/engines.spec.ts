import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { minVersion, satisfies, validRange } from 'semver';

// `npm ci` warns EBADENGINE when a locked package asks for a newer Node than the one the project
// declares; on the declared floor such a package may fail at run time (cookie@2 and file-type@22
// use Node 22 APIs). Every locked package must accept the lowest Node that `engines` allows.
const root = join(__dirname, '..');
const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { engines: { node: string } };
const lock = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8')) as {
  packages: Record<string, { version?: string; engines?: { node?: string } | string[] }>;
};

describe('package-lock.json against engines.node', () => {
  const floor = minVersion(manifest.engines.node)!.version;

  it('declares a Node floor', () => {
    expect(floor).toBe('20.19.0');
  });

  it('holds no package that needs a newer Node than the declared floor', () => {
    const refused = Object.entries(lock.packages)
      .filter(([path]) => path.startsWith('node_modules/'))
      .map(([path, meta]) => ({ path, range: Array.isArray(meta.engines) ? undefined : meta.engines?.node }))
      .filter(({ range }) => range !== undefined && validRange(range) !== null && !satisfies(floor, range!))
      .map(({ path, range }) => `${path.replace(/^.*node_modules\//, '')} needs node ${range}`);
    expect(refused).toEqual([]);
  });
});

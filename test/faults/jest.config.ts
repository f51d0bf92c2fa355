/** @jest-config-loader ts-node
 * @jest-config-loader-options {"transpileOnly": true, "compilerOptions": {"module": "commonjs", "moduleResolution": "node10"}}
 */
import type { Config } from 'jest';
import base from '../../jest.config';

/**
 * `npm run test:faults`: the fault-injection cases (test/faults/*.fault.ts), apart from `npm test`
 * because each one starts its own PostgreSQL and Redis, kills processes and runs for tens of
 * seconds. Same transform as the integration project; one file at a time (--runInBand in the script)
 * so a kill's timing does not depend on what another file is doing with the two cores.
 */
const integration = (base.projects as Config[]).find((p) => (p as { displayName?: unknown }).displayName === 'integration')!;

const config: Config = {
  ...integration,
  rootDir: '../..',
  displayName: 'faults',
  testMatch: ['<rootDir>/test/faults/**/*.fault.ts'],
  globalSetup: '<rootDir>/test/faults/support/global-setup.ts',
  globalTeardown: '<rootDir>/test/faults/support/global-teardown.ts',
  testTimeout: 180_000,
};

export default config;

/** @jest-config-loader ts-node
 * @jest-config-loader-options {"transpileOnly": true, "compilerOptions": {"module": "commonjs", "moduleResolution": "node10"}}
 */
import type { Config } from 'jest';

// NestJS 12 (and Fastify's helpers) ship ES modules: swc turns them into CommonJS for Jest.
const ESM_PACKAGES = [
  '@nestjs',
  'fastify',
  '@fastify',
  'light-my-request',
  'cookie',
  'set-cookie-parser',
  'uid',
  'find-my-way',
  'path-to-regexp',
  'jose',
];

const swc = [
  '@swc/jest',
  {
    jsc: {
      parser: { syntax: 'typescript', decorators: true },
      transform: { legacyDecorator: true, decoratorMetadata: true, useDefineForClassFields: false },
      target: 'es2022',
      keepClassNames: true,
    },
    module: { type: 'commonjs' },
    sourceMaps: 'inline',
  },
];

const common: Config = {
  testEnvironment: 'node',
  transform: { '^.+\\.(t|j|mj|cj)s$': swc as never },
  transformIgnorePatterns: [`/node_modules/(?!(${ESM_PACKAGES.join('|')})/)`],
  moduleNameMapper: { '^@mm/(errors|platform|contracts|webhook-signature)$': '<rootDir>/libs/$1/src' },
  moduleFileExtensions: ['ts', 'js', 'mjs', 'cjs', 'json'],
};

const config: Config = {
  globalSetup: '<rootDir>/test/support/global-setup.ts',
  globalTeardown: '<rootDir>/test/support/global-teardown.ts',
  // Hooks share this limit: a beforeAll that boots two or three apps took over 30 s in CI while a
  // heavy file ran beside it (access-guard, dev-sms), though either boots in seconds alone.
  testTimeout: 60_000,
  projects: [
    { ...common, displayName: 'unit', testMatch: ['<rootDir>/{apps,libs,tools}/**/*.spec.ts'] },
    {
      ...common,
      displayName: 'integration',
      testMatch: ['<rootDir>/apps/*/test/**/*.test.ts', '<rootDir>/libs/*/test/**/*.test.ts', '<rootDir>/test/**/*.test.ts'],
    },
  ],
};

export default config;

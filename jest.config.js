/**
 * jest in ESM mode: TypeScript is compiled by @swc/jest, modules stay ESM (run with
 * NODE_OPTIONS=--experimental-vm-modules, which `npm test` sets). One global set-up starts the embedded
 * PostgreSQL and the Temporal dev server once per run unless DATABASE_URL / TEMPORAL_ADDRESS point at
 * running ones.
 * @type {import('jest').Config}
 */
export default {
  testEnvironment: 'node',
  extensionsToTreatAsEsm: ['.ts'],
  transform: {
    '^.+\\.ts$': [
      '@swc/jest',
      {
        jsc: { parser: { syntax: 'typescript' }, target: 'es2024' },
        module: { type: 'es6' },
        sourceMaps: 'inline',
      },
    ],
  },
  testMatch: ['<rootDir>/test/**/*.test.ts'],
  globalSetup: '<rootDir>/test/support/global-setup.ts',
  globalTeardown: '<rootDir>/test/support/global-teardown.ts',
  testTimeout: 120_000,
  // Two cores: one file per core, and Temporal workers inside tests need the rest.
  maxWorkers: 2,
  // The Temporal native runtime keeps a handle open after workers shut down (sdk-typescript#928).
  forceExit: true,
  reporters: ['default'],
};

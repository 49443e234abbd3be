/**
 * jest in ESM mode: TypeScript is compiled by @swc/jest, modules stay ESM (run with
 * NODE_OPTIONS=--experimental-vm-modules, which the npm scripts set).
 *
 * Three projects, one per tier, so a run starts only the services its tests need (jest runs a project's
 * global set-up only when at least one of its test files is selected):
 * - `unit` (test/unit): pure functions and in-process objects; no set-up at all, runs in seconds.
 * - `workflows` (test/workflows): every workflow's branches against an in-memory Temporal dev server
 *   (`TestWorkflowEnvironment.createLocal` on the already-built CLI) with stub activities.
 * - `services` (test/integration, test/e2e): the embedded PostgreSQL and the Temporal dev server, started once
 *   per run unless DATABASE_URL / TEMPORAL_ADDRESS point at running ones.
 * `npm test` runs all three (each file once); `npm run test:unit` / `test:workflows` select one with
 * `--selectProjects`; `npm run test:jest -- <file>` runs any file with its own project's set-up.
 * @type {import('jest').Config}
 */
const shared = {
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
  testTimeout: 120_000,
  // The Go tools and the AT Protocol test tools (~660 packages) live in TOOLS_DIR, `.tools` by default, and the
  // tests' databases and media in `.data`: not modules of this project (jest would index them, and warn about
  // the test tools' package name).
  modulePathIgnorePatterns: ['<rootDir>/.tools/', '<rootDir>/.data/'],
};

export default {
  projects: [
    { ...shared, displayName: 'unit', testMatch: ['<rootDir>/test/unit/**/*.test.ts'] },
    {
      ...shared,
      displayName: 'workflows',
      testMatch: ['<rootDir>/test/workflows/**/*.test.ts'],
      globalSetup: '<rootDir>/test/support/workflows-global-setup.ts',
      globalTeardown: '<rootDir>/test/support/global-teardown.ts',
    },
    {
      ...shared,
      displayName: 'services',
      testMatch: ['<rootDir>/test/integration/**/*.test.ts', '<rootDir>/test/e2e/**/*.test.ts'],
      globalSetup: '<rootDir>/test/support/global-setup.ts',
      globalTeardown: '<rootDir>/test/support/global-teardown.ts',
    },
  ],
  testTimeout: 120_000,
  // Two cores: one file per core, and Temporal workers inside tests need the rest.
  maxWorkers: 2,
  // A worker that grew past this after a test file is replaced by a fresh one: some suites keep large native
  // buffers until a GC that may never come (resvg, thx/resvg-js#216), and one CI run's worker ran out of memory
  // on a small unit file after ~100 larger ones had run in it.
  workerIdleMemoryLimit: '1536MB',
  // The Temporal native runtime keeps a handle open after workers shut down (sdk-typescript#928).
  forceExit: true,
  reporters: ['default'],
};

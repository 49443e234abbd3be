// @ts-check
/**
 * The layers of ../shared/ARCHITECTURE.md §3, as rules over the import graph (`npm run lint:deps`, part of
 * `npm run lint`). Paths are relative to the repository root; npm packages resolve to `node_modules/<name>/…`.
 *
 *   workflows/   deterministic code: @temporalio/workflow, its own files, and types of anything else
 *   src/domain/  the business rules: no HTTP, MCP, Temporal client, OAuth provider, Koa or composition root
 *   src/public/  renders pure data: no database, HTTP, MCP, Temporal or OAuth provider
 *   src/mcp/, src/http/, src/cli/, src/auth/oidc/   edges: nothing inside the house imports them
 *   src/container.ts, src/worker.ts, src/main.ts    composition roots: the only files that know everything
 *
 * Type-only imports count for cycles too: a type cycle still means two modules cannot be read, tested or
 * moved one without the other (the 26-file circle of issue 19 was held together partly by `import type`).
 * This file is CommonJS because dependency-cruiser reads its configuration with `require`.
 */

/** npm packages that do I/O against our infrastructure or serve HTTP; pure layers must not load them. */
const INFRASTRUCTURE_PACKAGES =
  '^node_modules/(@mikro-orm|pg|pg-copy-streams|kysely|@temporalio|koa|koa-mount|@koa|oidc-provider|@modelcontextprotocol)/';
const EDGES = '^src/(http|mcp|cli|auth/oidc)/';
const COMPOSITION_ROOTS = '^src/(container|worker|main)[.]ts$';

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'No import cycles, type-only imports included (see the header).',
      from: {},
      to: { circular: true },
    },
    {
      name: 'workflows-import-only-types',
      severity: 'error',
      comment:
        'Workflow code is replayed in Temporal’s sandbox: it may load @temporalio/workflow and other workflow ' +
        'files only. Anything else (activities, the ORM, Node builtins) must be an `import type`.',
      from: { path: '^workflows/' },
      to: {
        pathNot: ['^workflows/', '^node_modules/@temporalio/workflow/'],
        dependencyTypesNot: ['type-only'],
      },
    },
    {
      name: 'domain-not-to-edges',
      severity: 'error',
      comment:
        'Domain code holds the rules and is called by the edges (HTTP, MCP, CLI, OAuth interactions), never the ' +
        'other way round; it reaches Temporal only through ports (JobLauncher, RepublishPort) that src/temporal ' +
        'implements.',
      from: { path: '^src/domain/' },
      to: { path: [EDGES, '^src/temporal/', COMPOSITION_ROOTS, '^node_modules/(koa|@koa|koa-mount|oidc-provider)/'] },
    },
    {
      name: 'domain-no-temporal-sdk',
      severity: 'error',
      comment:
        'Domain code does not call Temporal; a type of the SDK (the health probe’s Connection) is allowed, ' +
        'since it loads nothing.',
      from: { path: '^src/domain/' },
      to: { path: '^node_modules/@temporalio/', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'public-renders-pure-data',
      severity: 'error',
      comment:
        'src/public turns data into documents. It must not load the database, HTTP, MCP, Temporal or the OAuth ' +
        'provider; it takes what it shows (links, the tool list, the publication) as arguments.',
      from: { path: '^src/public/' },
      to: { path: [EDGES, '^src/(temporal|db)/', COMPOSITION_ROOTS, INFRASTRUCTURE_PACKAGES] },
    },
    {
      name: 'public-no-domain-services',
      severity: 'error',
      comment:
        'Entities and services load the ORM; src/public may use their types, and takes values from pure modules.',
      from: { path: '^src/public/' },
      to: { path: '^src/domain/.+[.](entity|entities|service)[.]ts$', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'inner-layers-not-to-edges',
      severity: 'error',
      comment:
        'MCP, HTTP, the CLI and the OAuth interactions are edges: activities, workflows, Temporal adapters and ' +
        'the database layer never import them (src/public has its own, stricter rule).',
      from: { path: '^(activities|workflows)/|^src/(temporal|db|net)/' },
      // db/entities.ts lists every entity for the ORM, the OAuth tables (auth/oidc/oidc.entities.ts) included.
      to: { path: [EDGES, COMPOSITION_ROOTS], pathNot: '[.]entities[.]ts$' },
    },
    {
      name: 'only-entry-points-know-the-root',
      severity: 'error',
      comment:
        'Only entry points build or hold the container; the HTTP edge may name its type (the app is built from it).',
      from: { path: '^src/', pathNot: ['^src/(main|worker)[.]ts$', '^src/cli/', '^src/http/'] },
      to: { path: COMPOSITION_ROOTS },
    },
  ],
  options: {
    doNotFollow: { path: '^node_modules/' },
    // Resolve `import type` too, so type-only links show up in the graph (and in cycles).
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default'] },
    reporterOptions: { text: { highlightFocused: true } },
  },
};

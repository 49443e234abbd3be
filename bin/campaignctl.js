#!/usr/bin/env node
// The operator CLI. Runs the TypeScript sources directly (Node 24 strips types); see src/cli/main.ts.
await import('../src/cli/campaignctl.ts');

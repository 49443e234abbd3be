/**
 * The Temporal server itself (`go.temporal.io/server/cmd/server`), for the test that runs Temporal over TLS:
 * `temporal server start-dev` has no TLS settings (its configuration is built in code: temporalio/cli
 * `devserver/server.go` never sets `global.tls`), while the server reads them from its YAML configuration.
 * v1.29.1 is the server the Temporal CLI v1.5.1 embeds. Built from its Go module on first use (see `go-tools.ts`);
 * `TEMPORAL_SERVER_PATH` names a binary instead.
 */
import { locateGoTool, type GoTool, type LocateOptions } from './go-tools.ts';

export const TEMPORAL_SERVER: GoTool = {
  title: 'Temporal server',
  module: 'go.temporal.io/server/cmd/server',
  version: 'v1.29.1',
  binary: 'server',
  probeArgs: ['--version'],
  alternatives: [
    'set TEMPORAL_SERVER_PATH to a Temporal server binary (temporal-server in the temporalio/server image)',
  ],
  // `go install` names it `server`: a different program of that name on PATH must not be taken for it.
  lookOnPath: false,
};

export function locateTemporalServer(options: LocateOptions) {
  return locateGoTool(TEMPORAL_SERVER, options);
}

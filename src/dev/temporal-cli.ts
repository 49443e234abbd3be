/**
 * The Temporal CLI, whose `server start-dev` is the embedded Temporal server: `TEMPORAL_CLI_PATH`, a
 * `temporal` on PATH, a copy cached in `TOOLS_DIR`, else built with
 * `go install github.com/temporalio/cli/cmd/temporal@v1.5.1` (v1.5.1 is the newest release whose go.mod allows
 * `go install`; it embeds Temporal server 1.29.1 and its web UI). See `go-tools.ts`.
 */
import { GoToolUnavailableError, locateGoTool, type GoTool, type LocateOptions } from './go-tools.ts';

export const TEMPORAL_CLI: GoTool = {
  title: 'Temporal CLI',
  module: 'github.com/temporalio/cli/cmd/temporal',
  version: 'v1.5.1',
  binary: 'temporal',
  probeArgs: ['--version'],
  alternatives: [
    'set TEMPORAL_CLI_PATH to a temporal binary (https://docs.temporal.io/cli#install), or put `temporal` on PATH',
    'point TEMPORAL_ADDRESS at a running Temporal server and skip the embedded one',
  ],
};

export { GoToolUnavailableError as TemporalCliUnavailableError };

export function locateTemporalCli(options: Omit<LocateOptions, 'explicitPath'> & { cliPath: string | undefined }) {
  return locateGoTool(TEMPORAL_CLI, { ...options, explicitPath: options.cliPath });
}

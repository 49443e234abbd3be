/**
 * Docker Compose (v2, standalone), for the test that checks the production compose file with `compose config`:
 * the file is read as Compose itself reads it (interpolation, required variables, the schema), with no Docker
 * engine needed. Built from its Go module on first use (see `go-tools.ts`) like the other tools, so the check
 * does not depend on a compose plugin someone installed by hand; `DOCKER_COMPOSE_PATH` names a binary instead.
 */
import { locateGoTool, type GoTool, type LocateOptions } from './go-tools.ts';

export const DOCKER_COMPOSE: GoTool = {
  title: 'Docker Compose',
  module: 'github.com/docker/compose/v2/cmd',
  version: 'v2.40.3',
  // Named after its package folder, as `go install` would; run directly, it behaves as `docker-compose`.
  binary: 'cmd',
  // Compose's go.mod has `exclude` directives, which `go install …/cmd@v2.40.3` refuses: built at its root.
  buildInModule: { module: 'github.com/docker/compose/v2', package: './cmd' },
  probeArgs: ['version'],
  alternatives: ['set DOCKER_COMPOSE_PATH to a docker-compose v2 binary'],
  lookOnPath: false,
};

export function locateDockerCompose(options: LocateOptions) {
  return locateGoTool(DOCKER_COMPOSE, options);
}

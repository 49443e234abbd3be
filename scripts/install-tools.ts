/**
 * `npm run tools:install`: locate or build the Go tools the platform and its tests use, and print their
 * paths: the Temporal CLI (the embedded Temporal server), the Versity S3 gateway (the S3 media store's tests) and
 * the Temporal server (the TLS test) and Docker Compose (the compose file's check). All are otherwise built on first use; CI builds them up front.
 */
import { loadConfigOrExit, processEnv } from '../src/config.ts';
import { GoToolUnavailableError } from '../src/dev/go-tools.ts';
import { locateDockerCompose } from '../src/dev/docker-compose.ts';
import { locateS3Gateway } from '../src/dev/s3-gateway.ts';
import { locateTemporalCli } from '../src/dev/temporal-cli.ts';
import { locateTemporalServer } from '../src/dev/temporal-server.ts';

const config = loadConfigOrExit();
const env = processEnv();
const common = { toolsDir: config.temporal.toolsDir, searchPath: env.PATH, onLog: (line: string) => console.log(line) };
try {
  console.log(await locateTemporalCli({ ...common, cliPath: config.temporal.cliPath }));
  console.log(await locateS3Gateway({ ...common, explicitPath: env.S3_GATEWAY_PATH }));
  console.log(await locateTemporalServer({ ...common, explicitPath: env.TEMPORAL_SERVER_PATH }));
  console.log(await locateDockerCompose({ ...common, explicitPath: env.DOCKER_COMPOSE_PATH }));
} catch (error) {
  if (error instanceof GoToolUnavailableError) {
    console.error(error.message);
    process.exit(1);
  }
  throw error;
}

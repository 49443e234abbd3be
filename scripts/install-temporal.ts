/** `npm run temporal:install`: locate or build the Temporal CLI and print its path. */
import { loadConfigOrExit, processEnv } from '../src/config.ts';
import { locateTemporalCli, TemporalCliUnavailableError } from '../src/dev/temporal-cli.ts';

const config = loadConfigOrExit();
try {
  const binary = await locateTemporalCli({
    cliPath: config.temporal.cliPath,
    toolsDir: config.temporal.toolsDir,
    searchPath: processEnv().PATH,
    onLog: (line) => console.log(line),
  });
  console.log(binary);
} catch (error) {
  if (error instanceof TemporalCliUnavailableError) {
    console.error(error.message);
    process.exit(1);
  }
  throw error;
}

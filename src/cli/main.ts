/**
 * `campaignctl`: the operator CLI. Every command validates its input, says what it did, and exits non-zero
 * with a clear message on failure. `--json` prints machine-readable output instead.
 *
 * With `DATABASE_URL` / `TEMPORAL_ADDRESS` unset it talks to the embedded services started by `npm start`.
 *
 * This file is the dispatcher: it parses the command line, loads the configuration and runs one command.
 * The commands live in `commands/`, one file per group.
 */
import { parseArgs } from 'node:util';
import { loadConfig, ConfigError, type Config } from '../config.ts';
import type { Container } from '../container.ts';
import { resolveLocalConfig, withLocalServices } from '../dev/local-services.ts';
import { closeLoopbackAwareFetch } from '../net/loopback-aware-fetch.ts';
import { createLogger } from '../logger.ts';
import { CliFailure, flag, required, UsageError, type CliIo, type Command, type Options } from './command.ts';
import { accountCommands } from './commands/account.ts';
import { creditCommands } from './commands/credits.ts';
import { databaseCommands } from './commands/database.ts';
import { jobCommands } from './commands/jobs.ts';
import { keyCommands } from './commands/keys.ts';
import { platformCommands } from './commands/platform.ts';
import { sessionCommands } from './commands/session.ts';
import { workspaceCommands } from './commands/workspaces.ts';
import { describeFailure } from './failures.ts';

// In this order in `--help`.
const COMMANDS: Record<string, Command> = {
  ...sessionCommands,
  ...databaseCommands,
  ...workspaceCommands,
  ...accountCommands,
  ...keyCommands,
  ...creditCommands,
  ...platformCommands,
  ...jobCommands,
};

function help(): string {
  const lines = Object.entries(COMMANDS).map(([name, c]) => `  ${name.padEnd(18)} ${c.summary}`);
  return `campaignctl <command> [options] [--json] [--debug]\n\nCommands:\n${lines.join('\n')}\n\nRun "campaignctl <command> --help" for its options. --json prints machine-readable output; --debug prints\nthe stack trace of an unexpected error.`;
}

export async function runCli(
  argv: string[],
  env: Record<string, string | undefined>,
  write = (s: string) => process.stdout.write(s),
): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === '--help' || name === 'help') {
    write(`${help()}\n`);
    return name ? 0 : 2;
  }
  const command = COMMANDS[name];
  if (!command) {
    process.stderr.write(`Unknown command "${name}"; "campaignctl --help" lists the commands.\n`);
    return 2;
  }
  let options: Options;
  try {
    options = parseArgs({
      args: rest,
      options: { ...command.options, json: flag, help: flag, debug: flag },
      strict: true,
      allowPositionals: false,
    }).values as Options;
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\nUsage: campaignctl ${command.usage}\n`);
    return 2;
  }
  if (options.help) {
    write(`${command.summary}\nUsage: campaignctl ${command.usage}\n`);
    return 0;
  }
  try {
    for (const option of command.required ?? []) required(options, option);
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\nUsage: campaignctl ${command.usage}\n`);
    return 2;
  }
  let loaded: Config;
  try {
    loaded = loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`Invalid configuration: ${error.problems.join('; ')} (see .env.example).\n`);
      return 78; // EX_CONFIG, as the API and the worker
    }
    throw error;
  }
  // Unset DATABASE_URL / TEMPORAL_ADDRESS / COOKIE_SECRETS mean the services `npm start` runs, found by the
  // same rule the dev stack starts them with. The cookie secret is read (or created) only by commands that
  // open the database: `login` against a remote server must not write into DATA_DIR.
  const config = withLocalServices(loaded);
  let container: Container | undefined;
  const json = Boolean(options.json);
  const io: CliIo = {
    config,
    json,
    out: (line) => {
      if (!json) write(`${line}\n`);
    },
    result: (value, human) => write(json ? `${JSON.stringify(value, null, 2)}\n` : `${human}\n`),
    container: async () => {
      // Loaded on first use: the container pulls in Temporal, oidc-provider and the ORM (over a second of
      // start-up), which `--help` and a usage error never need.
      const { createContainer } = await import('../container.ts');
      container ??= await createContainer(await resolveLocalConfig(loaded), {
        log: createLogger({ level: 'warn', name: 'cli' }),
        migrate: false,
        lazyTemporal: true,
      });
      return container;
    },
  };
  try {
    await command.run(io, options);
    return 0;
  } catch (error) {
    if (error instanceof CliFailure) return 1;
    if (error instanceof UsageError) {
      process.stderr.write(`${error.message}\nUsage: campaignctl ${command.usage}\n`);
      return 2;
    }
    const { line, exitCode } = describeFailure(error, loaded, Boolean(options.debug));
    process.stderr.write(`${line}\n`);
    return exitCode;
  } finally {
    await container?.close();
    await closeLoopbackAwareFetch();
  }
}

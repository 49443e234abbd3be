/**
 * Locates or builds the Temporal CLI, whose `server start-dev` is the embedded Temporal server.
 *
 * Order: `TEMPORAL_CLI_PATH`; a `temporal` on PATH; a copy cached in `TOOLS_DIR`; else build it with
 * `go install github.com/temporalio/cli/cmd/temporal@v1.5.1` into `TOOLS_DIR` (v1.5.1 is the newest
 * release whose go.mod allows `go install`; it embeds Temporal server 1.29.1 and its web UI). Nothing is
 * ever downloaded at test time.
 */
import { execFile, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { processEnv } from '../config.ts';

const execFileAsync = promisify(execFile);

export const TEMPORAL_CLI_VERSION = 'v1.5.1';
const MODULE = `github.com/temporalio/cli/cmd/temporal@${TEMPORAL_CLI_VERSION}`;

export class TemporalCliUnavailableError extends Error {
  constructor(reason: string) {
    super(
      `The Temporal CLI is not available: ${reason}\n` +
        'Provide it in one of these ways:\n' +
        '  - set TEMPORAL_CLI_PATH to a temporal binary (https://docs.temporal.io/cli#install), or put `temporal` on PATH;\n' +
        `  - install Go 1.25 or newer and run \`npm run temporal:install\` (builds ${MODULE});\n` +
        '  - or point TEMPORAL_ADDRESS at a running Temporal server and skip the embedded one.',
    );
    this.name = 'TemporalCliUnavailableError';
  }
}

async function works(binary: string): Promise<boolean> {
  try {
    await execFileAsync(binary, ['--version'], { timeout: 20_000 });
    return true;
  } catch {
    return false;
  }
}

async function onPath(name: string, envPath: string | undefined): Promise<string | undefined> {
  for (const dir of (envPath ?? '').split(path.delimiter).filter(Boolean)) {
    const candidate = path.join(dir, name);
    if (existsSync(candidate) && (await works(candidate))) return candidate;
  }
  return undefined;
}

export interface LocateOptions {
  cliPath: string | undefined;
  toolsDir: string;
  /** PATH to search (the caller passes the process PATH). */
  searchPath: string | undefined;
  /** Build with Go when no binary is found (default true). */
  install?: boolean;
  onLog?: (line: string) => void;
}

export function cachedCliPath(toolsDir: string): string {
  return path.join(toolsDir, `temporal-${TEMPORAL_CLI_VERSION}`, 'temporal');
}

export async function locateTemporalCli(options: LocateOptions): Promise<string> {
  const log = options.onLog ?? (() => undefined);
  if (options.cliPath) {
    if (await works(options.cliPath)) return options.cliPath;
    throw new TemporalCliUnavailableError(`TEMPORAL_CLI_PATH=${options.cliPath} does not run`);
  }
  const fromPath = await onPath('temporal', options.searchPath);
  if (fromPath) return fromPath;
  const cached = cachedCliPath(options.toolsDir);
  if (existsSync(cached) && (await works(cached))) return cached;
  if (options.install === false) throw new TemporalCliUnavailableError(`no binary at ${cached}`);

  const go = await onPath('go', options.searchPath ?? '');
  const goBinary = go ?? (existsSync('/usr/local/go/bin/go') ? '/usr/local/go/bin/go' : undefined);
  if (!goBinary) throw new TemporalCliUnavailableError('no temporal binary found and Go is not installed');
  await fs.mkdir(path.dirname(cached), { recursive: true });
  log(`building the Temporal CLI ${TEMPORAL_CLI_VERSION} with ${goBinary} (first run only; takes a few minutes)…`);
  await new Promise<void>((resolve, reject) => {
    const child = spawn(goBinary, ['install', MODULE], {
      env: { ...processEnv(), GOBIN: path.dirname(cached) },
      stdio: ['ignore', 'inherit', 'inherit'],
    });
    child.once('error', reject);
    child.once('exit', (code) =>
      code === 0 ? resolve() : reject(new TemporalCliUnavailableError(`go install exited with code ${code}`)),
    );
  });
  if (!(await works(cached))) throw new TemporalCliUnavailableError(`go install did not produce ${cached}`);
  return cached;
}

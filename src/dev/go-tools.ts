/**
 * Development and test tools that are Go programs, built from their Go module on first use: nothing is ever
 * downloaded at test or run time, and no package repository offers them on these machines.
 *
 * Order: an explicit path (e.g. `TEMPORAL_CLI_PATH`); the binary on PATH; a copy cached in `TOOLS_DIR` under
 * the pinned version; else `go install <module>@<version>` into `TOOLS_DIR` (or, for a module whose go.mod
 * `go install` refuses, `go build` at the downloaded module's root: `buildInModule`).
 */
import { execFile, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { processEnv } from '../config.ts';

const execFileAsync = promisify(execFile);

export interface GoTool {
  /** Human name for messages, e.g. "Temporal CLI". */
  title: string;
  /** Import path of the main package, e.g. `github.com/temporalio/cli/cmd/temporal`. */
  module: string;
  version: string;
  /** The binary `go install` produces. */
  binary: string;
  /** Arguments that make a working binary exit 0 quickly. */
  probeArgs: string[];
  /** What else the person can do when neither a binary nor Go is at hand. */
  alternatives: string[];
  /** False for a binary whose name is too generic to trust when found on PATH (e.g. `server`). */
  lookOnPath?: boolean;
  /**
   * Build inside the module instead of `go install <module>@<version>`: the module (this path) is downloaded and
   * `go build <package>` runs at its root, where Go honours its go.mod as the main module's. Needed where that
   * go.mod has `replace` or `exclude` directives, which `go install pkg@version` refuses (Docker Compose).
   */
  buildInModule?: { module: string; package: string };
}

export class GoToolUnavailableError extends Error {
  constructor(tool: GoTool, reason: string) {
    super(
      `The ${tool.title} is not available: ${reason}\n` +
        'Provide it in one of these ways:\n' +
        [
          ...tool.alternatives,
          `install Go 1.25 or newer and run \`npm run tools:install\` (builds ${tool.module}@${tool.version})`,
        ]
          .map((line) => `  - ${line}`)
          .join('\n'),
    );
    this.name = 'GoToolUnavailableError';
  }
}

async function works(binary: string, probeArgs: string[]): Promise<boolean> {
  try {
    await execFileAsync(binary, probeArgs, { timeout: 20_000 });
    return true;
  } catch {
    return false;
  }
}

async function onPath(name: string, probeArgs: string[], envPath: string | undefined): Promise<string | undefined> {
  for (const dir of (envPath ?? '').split(path.delimiter).filter(Boolean)) {
    const candidate = path.join(dir, name);
    if (existsSync(candidate) && (await works(candidate, probeArgs))) return candidate;
  }
  return undefined;
}

export interface LocateOptions {
  /** An explicit binary; it must work, or locating fails. */
  explicitPath?: string | undefined;
  toolsDir: string;
  /** PATH to search (the caller passes the process PATH). */
  searchPath: string | undefined;
  /** Build with Go when no binary is found (default true). */
  install?: boolean;
  onLog?: (line: string) => void;
}

export function cachedToolPath(tool: GoTool, toolsDir: string): string {
  return path.join(toolsDir, `${tool.binary}-${tool.version}`, tool.binary);
}

export async function locateGoTool(tool: GoTool, options: LocateOptions): Promise<string> {
  const log = options.onLog ?? (() => undefined);
  if (options.explicitPath) {
    if (await works(options.explicitPath, tool.probeArgs)) return options.explicitPath;
    throw new GoToolUnavailableError(tool, `${options.explicitPath} does not run`);
  }
  const fromPath =
    tool.lookOnPath === false ? undefined : await onPath(tool.binary, tool.probeArgs, options.searchPath);
  if (fromPath) return fromPath;
  const cached = cachedToolPath(tool, options.toolsDir);
  if (existsSync(cached) && (await works(cached, tool.probeArgs))) return cached;
  if (options.install === false) throw new GoToolUnavailableError(tool, `no binary at ${cached}`);

  const go = await onPath('go', ['version'], options.searchPath ?? '');
  const goBinary = go ?? (existsSync('/usr/local/go/bin/go') ? '/usr/local/go/bin/go' : undefined);
  if (!goBinary) throw new GoToolUnavailableError(tool, `no ${tool.binary} binary found and Go is not installed`);
  await fs.mkdir(path.dirname(cached), { recursive: true });
  log(`building the ${tool.title} ${tool.version} with ${goBinary} (first run only; takes a few minutes)…`);
  const env = { ...processEnv(), GOBIN: path.dirname(cached) };
  const runGo = (args: string[], cwd?: string) =>
    new Promise<void>((resolve, reject) => {
      const child = spawn(goBinary, args, { env, cwd, stdio: ['ignore', 'inherit', 'inherit'] });
      child.once('error', reject);
      child.once('exit', (code) =>
        code === 0 ? resolve() : reject(new GoToolUnavailableError(tool, `go ${args[0]} exited with code ${code}`)),
      );
    });
  if (tool.buildInModule) {
    const { module, package: pkg } = tool.buildInModule;
    const { stdout } = await execFileAsync(goBinary, ['mod', 'download', '-json', `${module}@${tool.version}`], {
      env,
      maxBuffer: 1024 * 1024,
    });
    const downloaded = JSON.parse(stdout) as { Dir?: string; Error?: string };
    if (!downloaded.Dir)
      throw new GoToolUnavailableError(tool, `go mod download failed: ${downloaded.Error ?? stdout}`);
    await runGo(['build', '-o', cached, pkg], downloaded.Dir);
  } else {
    await runGo(['install', `${tool.module}@${tool.version}`]);
  }
  if (!(await works(cached, tool.probeArgs)))
    throw new GoToolUnavailableError(tool, `the build did not produce ${cached}`);
  return cached;
}

/**
 * The heavy test-only tools, kept out of the platform's own `npm ci`: `test-tools/atproto/` is a package of
 * its own (package.json and package-lock.json, nothing else) pinning `@atproto/dev-env`, a real AT Protocol
 * network (PLC directory, PDS, AppView) for the Bluesky tests: ~640 packages.
 *
 * It is installed outside the checkout, like the Go tools, in `TOOLS_DIR/atproto-test-tools-<key>/` where the
 * key hashes the package files and the Node ABI: CI (which keeps `TOOLS_DIR` between runs of clean clones) and
 * every worktree of a machine share one copy, and a changed lock or Node installs a new one.
 * `ensureAtprotoTestTools()` returns at once when the copy for the current key is complete, else runs `npm ci`
 * there; `npm run test-tools:install` (which `.ci/run` calls) and the jest global set-up both call it, so a first
 * test run on a fresh machine installs it.
 *
 * Nothing is downloaded but npm packages, and nothing is compiled:
 * - The PDS's database driver is `better-sqlite3` 13 (an `overrides` entry over dev-env's 12): a Node-API module
 *   whose prebuilt binaries ship inside the npm package. Version 12 had to compile against the running Node's
 *   headers, and compiled against Node 24.19+ headers it aborts the process on an idle garbage collection
 *   (`RemoveEnvironmentCleanupHook: Assertion failed: (env) != nullptr`, nodejs/node#65446): the PDS died
 *   mid-test, seconds after a write.
 * - The other install scripts in the tree are denied in the package's `allowScripts` (npm skips them): sharp's
 *   (it would try a source build; its prebuilt binary comes as an npm package), core-js's banner and
 *   protobufjs's version warning.
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { pollUntil } from './poll.ts';
import { isProcessAlive } from '../../src/dev/processes.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
const PACKAGE = path.join(ROOT, 'test-tools', 'atproto');
const PACKAGE_FILES = ['package.json', 'package-lock.json'];

/** Changes whenever what is installed would: the package files, or the Node ABI better-sqlite3 is built for. */
function installKey(): string {
  const hash = createHash('sha256');
  for (const file of PACKAGE_FILES) hash.update(readFileSync(path.join(PACKAGE, file)));
  hash.update(`${process.platform}-${process.arch}-node-abi-${process.versions.modules}`);
  return hash.digest('hex');
}

/** One install of a key at a time (concurrent test runs, or worktrees sharing TOOLS_DIR, would race). */
async function withInstallLock<T>(lock: string, work: () => Promise<T>): Promise<T> {
  const tryLock = async (): Promise<boolean> => {
    try {
      await fs.writeFile(lock, String(process.pid), { flag: 'wx' });
      return true;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const holder = Number(await fs.readFile(lock, 'utf8').catch(() => ''));
      // A lock whose process is gone was left by a killed install: take it over.
      if (holder > 0 && !isProcessAlive(holder)) await fs.rm(lock, { force: true });
      return false;
    }
  };
  await pollUntil(tryLock, (locked) => locked, {
    timeoutMs: 20 * 60_000,
    intervalMs: 1_000,
    timeoutMessage: `another install held ${lock} for 20 minutes`,
  });
  try {
    return await work();
  } finally {
    await fs.rm(lock, { force: true });
  }
}

async function npmCi(dir: string, log: (line: string) => void): Promise<void> {
  const env = {
    ...process.env,
    // The Node running this first on PATH: lifecycle scripts run with it.
    PATH: [path.dirname(process.execPath), process.env.PATH ?? ''].join(path.delimiter),
  };
  let output = '';
  const code = await new Promise<number | null>((resolve, reject) => {
    const child = spawn('npm', ['ci', '--no-audit', '--no-fund'], {
      cwd: dir,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    child.once('error', reject);
    child.once('exit', resolve);
  });
  if (code !== 0) {
    throw new Error(`npm ci in ${dir} exited with code ${code}:\n${output.split('\n').slice(-60).join('\n')}`);
  }
  log(output.trim().split('\n').at(-1) ?? '');
}

/** The native module must load in this Node, or every PDS would fail at start with an ABI error. */
async function checkNativeModule(dir: string): Promise<void> {
  const probe = "import Database from 'better-sqlite3'; new Database(':memory:').close();";
  await new Promise<void>((resolve, reject) => {
    const child = spawn(process.execPath, ['--input-type=module', '-e', probe], {
      cwd: dir,
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    child.once('error', reject);
    child.once('exit', (code) =>
      code === 0 ? resolve() : reject(new Error(`better-sqlite3 does not load in Node ${process.version}:\n${stderr}`)),
    );
  });
}

/**
 * Installs `test-tools/atproto` into `toolsDir` unless the copy for the current package files and Node is there
 * already; returns its `node_modules` folder.
 */
export async function ensureAtprotoTestTools(options: {
  toolsDir: string;
  onLog?: (line: string) => void;
}): Promise<string> {
  const log = options.onLog ?? (() => undefined);
  const key = installKey();
  const dir = path.join(options.toolsDir, `atproto-test-tools-${key.slice(0, 16)}`);
  // Written last by a complete install, and holding the full key.
  const stamp = path.join(dir, 'installed');
  const installed = () => existsSync(stamp) && readFileSync(stamp, 'utf8') === key;
  if (installed()) return path.join(dir, 'node_modules');
  await fs.mkdir(options.toolsDir, { recursive: true });
  return withInstallLock(`${dir}.lock`, async () => {
    // Another run may have finished the install while we waited for the lock.
    if (installed()) return path.join(dir, 'node_modules');
    const started = Date.now();
    log(`installing test-tools/atproto into ${dir} (npm ci)…`);
    await fs.rm(dir, { recursive: true, force: true });
    await fs.mkdir(dir, { recursive: true });
    for (const file of PACKAGE_FILES) await fs.copyFile(path.join(PACKAGE, file), path.join(dir, file));
    await npmCi(dir, log);
    await checkNativeModule(dir);
    await fs.writeFile(stamp, key);
    log(`installed test-tools/atproto in ${Math.round((Date.now() - started) / 1000)} s`);
    return path.join(dir, 'node_modules');
  });
}

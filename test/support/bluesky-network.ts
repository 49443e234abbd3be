/**
 * A real AT Protocol network on loopback for a test file: `@atproto/dev-env` (the test tools installed by
 * `npm run test-tools:install` or the global set-up, see `test-tools.ts`) run by `atproto-network-entry.ts` in a
 * process of its own. The platform talks to it as to Bluesky: with `@atproto/api` and the PDS's URL as the
 * service; nothing in the product knows it is a test server.
 *
 * - Without the AppView (the default): a PLC directory and one PDS. Accounts, app-password sessions, blobs,
 *   record writes, reads and deletes. Up in ~6 CPU-seconds, nearly all of it loading the packages.
 * - `{ appView: true }`: also the AppView, bsync and Ozone, so `app.bsky.*` reads through the PDS (e.g.
 *   `getPosts` with like counts) work; the AppView indexes from the PDS's firehose, so poll for counts. Up in
 *   ~12 CPU-seconds. It needs PostgreSQL: a database of its own on the test run's server, dropped on stop (the
 *   global teardown drops it if a test crashes). dev-env insists on `REDIS_HOST`, but no service of this
 *   version reads it (`@atproto/bsky` 0.0.280 has no Redis client in use), so it names a loopback port where
 *   nothing listens; should an upgrade start using it, give it a real `redis-server`.
 *
 * One network per test file (in `beforeAll`), shared by the file's tests: files stay independent, and runs that
 * select no Bluesky test start nothing. Every account is new (random handle), so tests do not meet each other.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { AtpAgent } from '@atproto/api';
import pg from 'pg';
import { freePort } from './global-setup.ts';
import { READY_PREFIX, type NetworkUrls } from './atproto-network-entry.ts';
import { spawnLogged } from './logged-process.ts';
import { pollUntil } from './poll.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
const ENTRY = path.join(ROOT, 'test', 'support', 'atproto-network-entry.ts');

export interface BlueskyAccount {
  did: string;
  /** `<name><6 hex>.test`: the PDS serves `.test` handles and resolves them itself. */
  handle: string;
  email: string;
  /** The account password (what a person signs in to bsky.app with). */
  password: string;
  /** An app password, what the platform is given to connect the account. */
  appPassword: string;
}

export interface BlueskyNetwork {
  /** The service URL the platform is configured with (Bluesky's would be https://bsky.social). */
  pdsUrl: string;
  plcUrl: string;
  /** The AppView's own URL, or null without it; clients reach it through the PDS, never directly. */
  appViewUrl: string | null;
  /** A new account on the PDS (a short `name`, ≤ 12 letters) with an app password. */
  createAccount(name: string): Promise<BlueskyAccount>;
  /** Closes the PDS's listener: connections are refused until `pdsUp` (its data stays). */
  pdsDown(): Promise<void>;
  /** Listens again on the same port, with the same data. */
  pdsUp(): Promise<void>;
  /** Stops every service and removes their data. */
  stop(): Promise<void>;
}

async function createDatabase(name: string): Promise<{ url: string; drop(): Promise<void> }> {
  const adminUrl = process.env.TEST_DATABASE_ADMIN_URL!;
  const run = async (sql: string) => {
    const admin = new pg.Client({ connectionString: adminUrl });
    await admin.connect();
    try {
      await admin.query(sql);
    } finally {
      await admin.end();
    }
  };
  const identifier = `"${name}"`;
  await run(`create database ${identifier}`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return { url: url.toString(), drop: () => run(`drop database if exists ${identifier} with (force)`) };
}

export async function startBlueskyNetwork(options: { appView?: boolean } = {}): Promise<BlueskyNetwork> {
  const id = `${process.env.TEST_RUN_ID}_${randomBytes(3).toString('hex')}`;
  // dev-env puts each PDS's SQLite files and blobs in a fresh folder under the OS temp folder: this one.
  const tmpDir = path.join(ROOT, '.data', 'test', `atproto-${id}`);
  await fs.mkdir(tmpDir, { recursive: true });
  const cleanups: (() => Promise<void>)[] = [() => fs.rm(tmpDir, { recursive: true, force: true })];
  const cleanUp = async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  };

  try {
    const env: Record<string, string> = {
      PATH: process.env.PATH ?? '',
      TMPDIR: tmpDir,
      // Set by the global set-up, which installed them.
      ATPROTO_NODE_MODULES: process.env.TEST_ATPROTO_NODE_MODULES!,
      // V8's compiled code for the ~660 packages, kept between starts: about a sixth less CPU per start.
      NODE_COMPILE_CACHE: path.join(process.env.TEST_ATPROTO_NODE_MODULES!, '.compile-cache'),
    };
    if (options.appView) {
      // Named like the run's other databases, so the global teardown drops it whatever happens here.
      const database = await createDatabase(`cp_test_${id}_atproto`);
      cleanups.push(database.drop);
      Object.assign(env, {
        ATPROTO_APPVIEW: '1',
        DB_POSTGRES_URL: database.url,
        DB_POSTGRES_SCHEMA: 'test',
        REDIS_HOST: `127.0.0.1:${await freePort()}`,
      });
    }
    const network = spawnLogged(ENTRY, env, READY_PREFIX, 'AT Protocol network', { stdin: 'pipe' });
    cleanups.push(async () => {
      await network.kill('SIGTERM');
    });
    await network.ready;
    const line = network
      .output()
      .split('\n')
      .find((candidate) => candidate.startsWith(READY_PREFIX))!;
    const urls = JSON.parse(line.slice(READY_PREFIX.length)) as NetworkUrls;

    /** Sends an outage command and waits for its acknowledgement (the n-th of its kind). */
    const acknowledged = { 'pds-down': 0, 'pds-up': 0 };
    const command = async (name: 'pds-down' | 'pds-up') => {
      acknowledged[name] += 1;
      const expected = acknowledged[name];
      network.child.stdin!.write(`${name}\n`);
      await pollUntil(
        async () =>
          network
            .output()
            .split('\n')
            .filter((line) => line === `${name}-done`).length,
        (count) => count >= expected,
        { timeoutMs: 10_000, intervalMs: 20, timeoutMessage: () => `the network did not acknowledge ${name}` },
      );
    };

    return {
      ...urls,
      pdsDown: () => command('pds-down'),
      pdsUp: () => command('pds-up'),
      createAccount: async (name) => {
        const agent = new AtpAgent({ service: urls.pdsUrl });
        const handle = `${name}${randomBytes(3).toString('hex')}.test`;
        const email = `${handle}@example.com`;
        const password = randomBytes(12).toString('base64url');
        await agent.createAccount({ handle, email, password });
        const { data } = await agent.com.atproto.server.createAppPassword({ name: 'campaign-platform' });
        return { did: agent.session!.did, handle, email, password, appPassword: data.password };
      },
      stop: async () => {
        const exit = await network.kill('SIGTERM');
        await cleanUp();
        if (exit.code !== 0)
          throw new Error(
            `the AT Protocol network did not stop cleanly (${exit.signal ?? exit.code}):\n${network.output()}`,
          );
      },
    };
  } catch (error) {
    await cleanUp();
    throw error;
  }
}

/**
 * One AT Protocol network on loopback, as a process of its own: `bluesky-network.ts` runs this file with the
 * Node that runs the tests. A process of its own because `@atproto/dev-env` is ~660 packages with a native
 * module, installed outside the project's node_modules (`ATPROTO_NODE_MODULES`, see `test-tools.ts`): loaded into
 * a jest test's module registry it would be slow, and its checks of binary data would meet the sandbox's other
 * realm.
 *
 * - Default: `TestNetworkNoAppView`, an in-memory PLC directory and a PDS whose SQLite files and blobs go under
 *   TMPDIR. Enough to create accounts, log in, upload blobs, write, read and delete records.
 * - `ATPROTO_APPVIEW=1`: `TestNetwork`, which adds the AppView (bsky: the index behind feeds, threads and like
 *   counts, fed by the PDS's firehose), bsync and Ozone on PostgreSQL (`DB_POSTGRES_URL`; schemas named after
 *   `DB_POSTGRES_SCHEMA`; `REDIS_HOST` must be set). The PDS proxies `app.bsky.*` reads to it.
 *
 * Prints `atproto-network-ready <json>` once every service listens, then runs until SIGTERM or SIGINT, or until
 * its stdin closes (the test process is gone), and closes every service before it exits.
 *
 * An outage on demand: the line `pds-down` on stdin closes the PDS's listener (connections are refused, as from
 * a server that is down; its data stays), `pds-up` listens again on the same port; each is acknowledged with
 * `pds-down-done` / `pds-up-done` on stdout. The same PDS, the same accounts and records, before and after.
 */
import type { Server } from 'node:http';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const READY_PREFIX = 'atproto-network-ready ';

export interface NetworkUrls {
  plcUrl: string;
  pdsUrl: string;
  appViewUrl: string | null;
}

interface Closable {
  close(): Promise<void>;
}

/** What the outage control touches of dev-env's PDS: its HTTP listener and the port it serves. */
interface PdsHandle {
  port: number;
  server: { server?: Server };
}

async function main(): Promise<void> {
  const nodeModules = process.env.ATPROTO_NODE_MODULES;
  if (!nodeModules) throw new Error('ATPROTO_NODE_MODULES names the installed test tools (see test-tools.ts)');
  const devEnv = (file: string) =>
    import(pathToFileURL(path.join(nodeModules, '@atproto', 'dev-env', 'dist', file)).href);
  const appView = process.env.ATPROTO_APPVIEW === '1';

  // The package's root module loads the AppView and Ozone too; without them, loading only the PDS side saves
  // about a third of the start (the version is pinned, so these file names hold until the pin moves).
  // Rate limits on, as on bsky.social: every answer carries its RateLimit-* headers.
  const params = { pds: { rateLimitsEnabled: true } };
  let network: Closable;
  let urls: NetworkUrls;
  let pds: PdsHandle;
  if (appView) {
    const full = await (await devEnv('index.js')).TestNetwork.create(params);
    network = full;
    pds = full.pds;
    urls = { plcUrl: full.plc.url, pdsUrl: full.pds.url, appViewUrl: full.bsky.url };
  } else {
    const pdsOnly = await (await devEnv('network-no-appview.js')).TestNetworkNoAppView.create(params);
    network = pdsOnly;
    pds = pdsOnly.pds;
    urls = { plcUrl: pdsOnly.plc.url, pdsUrl: pdsOnly.pds.url, appViewUrl: null };
  }

  // The same server object listens again after the outage: the PDS's own shutdown keeps working on it.
  const outage = async (command: string) => {
    const listener = pds.server.server!;
    if (command === 'pds-down' && listener.listening) {
      await new Promise<void>((resolve) => {
        listener.close(() => resolve());
        listener.closeAllConnections();
      });
      console.log('pds-down-done');
    } else if (command === 'pds-up' && !listener.listening) {
      listener.listen(pds.port);
      await new Promise<void>((resolve) => listener.once('listening', () => resolve()));
      console.log('pds-up-done');
    }
  };
  let commands = '';
  process.stdin.on('data', (chunk: Buffer) => {
    commands += chunk.toString('utf8');
    let newline: number;
    while ((newline = commands.indexOf('\n')) >= 0) {
      const command = commands.slice(0, newline).trim();
      commands = commands.slice(newline + 1);
      void outage(command);
    }
  });

  let closing: Promise<void> | undefined;
  const shutdown = (reason: string) => {
    // Said on stdout, so a network that stopped early says why in the test's failure.
    if (!closing) console.log(`atproto-network-stopping (${reason})`);
    closing ??= network.close().then(
      () => process.exit(0),
      (error: unknown) => {
        console.error('closing the AT Protocol network failed:', error);
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', () => shutdown('SIGTERM'));
  process.once('SIGINT', () => shutdown('SIGINT'));
  process.stdin.once('close', () => shutdown('stdin closed'));
  process.stdin.resume();

  console.log(`${READY_PREFIX}${JSON.stringify(urls)}`);
}

// Run only as the entry point: bluesky-network.ts imports this file for its constants.
if (process.argv[1] === fileURLToPath(import.meta.url)) await main();

/**
 * A real Temporal server that accepts gRPC over TLS only and requires client certificates (mutual TLS), for the
 * test of TEMPORAL_TLS_*. `temporal server start-dev` cannot do this (no TLS settings), so this runs the Temporal
 * server binary (`src/dev/temporal-server.ts`, the version the CLI embeds) on the dev server's persistence: an
 * in-memory SQLite database, one history shard, all four services in one process, bound to loopback.
 *
 * The frontend's certificate is issued to `serverName`, not to the loopback address, so clients must also honour
 * TEMPORAL_TLS_SERVER_NAME. The server's own system worker is a TLS client of the frontend like any other.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Connection } from '@temporalio/client';
import { msToTs } from '@temporalio/common/lib/time.js';
import { processEnv } from '../../src/config.ts';
import { locateTemporalServer } from '../../src/dev/temporal-server.ts';
import { freePort } from './global-setup.ts';
import type { TestPki } from './test-certificates.ts';

export interface TlsTemporal {
  /** `127.0.0.1:<port>`: only reachable with TLS, a client certificate and `serverName`. */
  address: string;
  serverName: string;
  stop(): Promise<void>;
}

/** Builds the server on first use (minutes) unless TEMPORAL_SERVER_PATH or TOOLS_DIR has it. */
export async function locateTestTemporalServer(): Promise<string> {
  const env = processEnv();
  return locateTemporalServer({
    explicitPath: env.TEMPORAL_SERVER_PATH,
    toolsDir: path.resolve(env.TOOLS_DIR ?? '.tools'),
    searchPath: env.PATH,
    onLog: (line) => process.stderr.write(`${line}\n`),
  });
}

function sqliteStore() {
  return {
    sql: {
      pluginName: 'sqlite',
      databaseName: 'default',
      connectAddr: 'localhost',
      connectProtocol: 'tcp',
      connectAttributes: { mode: 'memory', cache: 'private' },
      maxConns: 1,
      maxIdleConns: 1,
    },
  };
}

/** JSON is YAML: the server's configuration, written as JSON. */
async function serverConfig(pki: TestPki, serverName: string, ip: string, frontendPort: number) {
  const service = async (grpcPort: number) => ({
    rpc: { grpcPort, membershipPort: await freePort(), bindOnIP: ip },
  });
  const frontend = await service(frontendPort);
  const clientOfFrontend = { serverName, rootCaFiles: [pki.caCert] };
  return {
    log: { stdout: true, level: 'error' },
    persistence: {
      defaultStore: 'sqlite-default',
      visibilityStore: 'sqlite-visibility',
      numHistoryShards: 1,
      datastores: { 'sqlite-default': sqliteStore(), 'sqlite-visibility': sqliteStore() },
    },
    global: {
      membership: { maxJoinDuration: '30s', broadcastAddress: ip },
      tls: {
        frontend: {
          server: {
            certFile: pki.serverCert,
            keyFile: pki.serverKey,
            clientCaFiles: [pki.caCert],
            requireClientAuth: true,
          },
          client: clientOfFrontend,
        },
        systemWorker: { certFile: pki.clientCert, keyFile: pki.clientKey, client: clientOfFrontend },
      },
    },
    services: {
      frontend: { rpc: { ...frontend.rpc, httpPort: await freePort() } },
      history: await service(await freePort()),
      matching: await service(await freePort()),
      worker: await service(await freePort()),
    },
    clusterMetadata: {
      enableGlobalNamespace: false,
      failoverVersionIncrement: 10,
      masterClusterName: 'active',
      currentClusterName: 'active',
      clusterInformation: {
        active: { enabled: true, initialFailoverVersion: 1, rpcName: 'frontend', rpcAddress: `${ip}:${frontendPort}` },
      },
    },
    dcRedirectionPolicy: { policy: 'noop' },
    dynamicConfigClient: { filepath: 'dynamicconfig.yaml', pollInterval: '10s' },
  };
}

// A namespace registered at start and the search attributes added to it are seen within a second, not after the
// default ten-second cache refresh.
const DYNAMIC_CONFIG = `system.namespaceCacheRefreshInterval:
  - value: 1s
system.forceSearchAttributesCacheRefreshOnRead:
  - value: true
`;

export async function startTlsTemporal(options: {
  binary: string;
  pki: TestPki;
  serverName: string;
  /** Registered at start (the server binary creates none). */
  namespace: string;
}): Promise<TlsTemporal> {
  const ip = '127.0.0.1';
  const port = await freePort();
  const root = await fs.mkdtemp(path.join(os.tmpdir(), 'tls-temporal-'));
  await fs.mkdir(path.join(root, 'config'));
  const config = await serverConfig(options.pki, options.serverName, ip, port);
  await fs.writeFile(path.join(root, 'config', 'development.yaml'), JSON.stringify(config, null, 2));
  await fs.writeFile(path.join(root, 'dynamicconfig.yaml'), DYNAMIC_CONFIG);

  const child = spawn(options.binary, ['--root', root, '--config', 'config', '--allow-no-auth', 'start'], {
    cwd: root,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let output = '';
  child.stderr!.on('data', (chunk: Buffer) => {
    output = (output + chunk.toString('utf8')).slice(-4000);
  });
  let exited = false;
  const gone = new Promise<void>((resolve) =>
    child.once('exit', () => {
      exited = true;
      resolve();
    }),
  );
  const stop = async () => {
    if (!exited) {
      child.kill('SIGTERM');
      const timedOut = await Promise.race([
        gone.then(() => false),
        sleep(10_000, undefined, { ref: false }).then(() => true),
      ]);
      if (timedOut) child.kill('SIGKILL');
      await gone;
    }
    await fs.rm(root, { recursive: true, force: true });
  };

  const address = `${ip}:${port}`;
  const [ca, crt, key] = await Promise.all(
    [options.pki.caCert, options.pki.clientCert, options.pki.clientKey].map((file) => fs.readFile(file)),
  );
  const tls = {
    serverRootCACertificate: ca,
    clientCertPair: { crt: crt!, key: key! },
    serverNameOverride: options.serverName,
  };
  try {
    const deadline = Date.now() + 60_000;
    let registered = false;
    for (;;) {
      if (exited) throw new Error(`the Temporal server exited during start-up:\n${output}`);
      try {
        const connection = await Connection.connect({ address, tls, connectTimeout: '2s' });
        try {
          if (!registered) {
            await connection.workflowService
              .registerNamespace({
                namespace: options.namespace,
                workflowExecutionRetentionPeriod: msToTs('1 day'),
              })
              .catch((error: unknown) => {
                if (!/already exists/i.test(String(error))) throw error;
              });
            registered = true;
          }
          // Registered in the database; usable once the frontend's namespace registry has read it.
          await connection.workflowService.describeNamespace({ namespace: options.namespace });
          break;
        } finally {
          await connection.close();
        }
      } catch (error) {
        if (Date.now() > deadline)
          throw new Error(`the Temporal server at ${address} is not ready: ${String(error)}`, { cause: error });
        await sleep(250);
      }
    }
  } catch (error) {
    await stop();
    throw error;
  }
  return { address, serverName: options.serverName, stop };
}

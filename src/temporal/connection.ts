/**
 * Connections to Temporal: the one place that turns the configuration into connection options, used by the API's
 * client, the worker's native connection and its activities' client, and the CLI (through the container). The
 * local dev server (TEMPORAL_ADDRESS unset outside production) gets plaintext options, as before.
 *
 * The API's client is pure-JS gRPC; the native runtime is only loaded by the worker.
 */
import { Client, Connection } from '@temporalio/client';
import type { Config } from '../config.ts';
import { clientTracingInterceptors } from './tracing-interceptors.ts';
import { checkTemporalTls } from './tls-check.ts';

export { checkTemporalTls, TemporalTlsError } from './tls-check.ts';

export interface TemporalClient {
  connection: Connection;
  client: Client;
  address: string;
  /** Connects now if lazy, failing with the TLS reason (`TemporalTlsError`) when TLS is what goes wrong. */
  ensureConnected(): Promise<void>;
}

/** What `Connection` (@temporalio/client) and `NativeConnection` (@temporalio/worker) both accept. */
export interface TemporalConnectionOptions {
  address: string;
  tls?: {
    serverRootCACertificate?: Buffer;
    clientCertPair?: { crt: Buffer; key: Buffer };
    serverNameOverride?: string;
  };
  apiKey?: string;
  metadata?: Record<string, string>;
}

export function temporalConnectionOptions(temporal: Config['temporal'], address: string): TemporalConnectionOptions {
  const { tls, apiKey } = temporal.security;
  const options: TemporalConnectionOptions = { address };
  if (tls) {
    options.tls = {
      ...(tls.serverRootCaCertificate && { serverRootCACertificate: tls.serverRootCaCertificate }),
      ...(tls.clientCertPair && { clientCertPair: tls.clientCertPair }),
      ...(tls.serverNameOverride && { serverNameOverride: tls.serverNameOverride }),
    };
  }
  if (apiKey) {
    options.apiKey = apiKey;
    // Temporal Cloud's regional API-key endpoints route a call by this header (requests such as GetSystemInfo
    // carry no namespace of their own); other servers ignore it.
    options.metadata = { 'temporal-namespace': temporal.namespace };
  }
  return options;
}

/** `lazy` defers the connection to the first call (the CLI only needs Temporal for job commands). */
export async function connectTemporalClient(config: Config, address: string, lazy = false): Promise<TemporalClient> {
  const options = { ...temporalConnectionOptions(config.temporal, address), connectTimeout: '10s' };
  if (!lazy) await checkTemporalTls(config.temporal, address);
  const connection = lazy ? Connection.lazy(options) : await Connection.connect(options);
  const client = new Client({
    connection,
    namespace: config.temporal.namespace,
    interceptors: clientTracingInterceptors(),
  });
  return {
    connection,
    client,
    address,
    ensureConnected: async () => {
      await checkTemporalTls(config.temporal, address);
      await connection.ensureConnected();
    },
  };
}

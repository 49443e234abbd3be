/**
 * The API's Temporal client (pure-JS gRPC; the native runtime is only loaded by the worker).
 */
import { Client, Connection } from '@temporalio/client';
import type { Config } from '../config.ts';
import { clientTracingInterceptors } from './tracing-interceptors.ts';

export interface TemporalClient {
  connection: Connection;
  client: Client;
  address: string;
}

/** `lazy` defers the connection to the first call (the CLI only needs Temporal for job commands). */
export async function connectTemporalClient(config: Config, address: string, lazy = false): Promise<TemporalClient> {
  const connection = lazy
    ? Connection.lazy({ address, connectTimeout: '10s' })
    : await Connection.connect({ address, connectTimeout: '10s' });
  const client = new Client({
    connection,
    namespace: config.temporal.namespace,
    interceptors: clientTracingInterceptors(),
  });
  return { connection, client, address };
}

/**
 * Where the local (embedded) services live when `DATABASE_URL` / `TEMPORAL_ADDRESS` are unset: the dev stack
 * starts them there, and the CLI finds them there.
 */
import path from 'node:path';
import type { Config } from '../config.ts';
import { embeddedPostgresUrl } from './embedded-postgres.ts';

export const EMBEDDED_DATABASE = 'campaign_platform';

export function localDatabaseUrl(config: Config): string {
  return config.database.url ?? embeddedPostgresUrl(config.database.embeddedPort, EMBEDDED_DATABASE);
}

export function localTemporalAddress(config: Config): string {
  return config.temporal.address ?? `127.0.0.1:${config.temporal.devPort}`;
}

export function postgresDataDir(config: Config): string {
  return path.join(config.dataDir, 'postgres');
}

export function temporalDataDir(config: Config): string {
  return path.join(config.dataDir, 'temporal');
}

/** The config with the local service addresses filled in where none were configured. */
export function withLocalServices(config: Config): Config {
  return {
    ...config,
    database: { ...config.database, url: localDatabaseUrl(config) },
    temporal: { ...config.temporal, address: localTemporalAddress(config) },
  };
}

/**
 * The local services `npm start` runs when `DATABASE_URL` / `TEMPORAL_ADDRESS` / `COOKIE_SECRETS` /
 * `CREDENTIAL_KEYS` are unset: where the embedded PostgreSQL and the Temporal dev server live and listen, and
 * where the development cookie secret and credential key are kept. The dev stack starts them from this description, and the CLI finds them through it: one
 * rule for both, so that `npm run cli -- …` reaches exactly what `npm start` started (the CLI once derived the
 * addresses itself and never read the cookie secret, and so could not decrypt the OAuth signing keys).
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { Config } from '../config.ts';
import { embeddedPostgresUrl } from './embedded-postgres.ts';

export const EMBEDDED_DATABASE = 'campaign_platform';

/** The embedded services listen on loopback only. */
const LOCAL_HOST = '127.0.0.1';

/** Development cookie secrets are at least this long, like configured ones (see COOKIE_SECRETS in config). */
const MIN_SECRET_LENGTH = 32;

export interface LocalServices {
  /** The embedded PostgreSQL to run, or `null` when DATABASE_URL names a server. */
  embeddedPostgres: { dataDir: string; port: number; database: string } | null;
  databaseUrl: string;
  /** The Temporal dev server to run, or `null` when TEMPORAL_ADDRESS names a server. */
  embeddedTemporal: { dataDir: string; host: string; port: number; uiPort: number } | null;
  temporalAddress: string;
  /** Where the development cookie secret is kept, or `null` when COOKIE_SECRETS is configured. */
  cookieSecretFile: string | null;
  /** Where the development key sealing channel credentials is kept, or `null` when CREDENTIAL_KEYS is configured. */
  credentialKeyFile: string | null;
}

/** Where everything is, from the configuration alone (no I/O). */
export function localServices(config: Config): LocalServices {
  const embeddedPostgres = config.database.url
    ? null
    : {
        dataDir: path.join(config.dataDir, 'postgres'),
        port: config.database.embeddedPort,
        database: EMBEDDED_DATABASE,
      };
  const embeddedTemporal = config.temporal.address
    ? null
    : {
        dataDir: path.join(config.dataDir, 'temporal'),
        host: LOCAL_HOST,
        port: config.temporal.devPort,
        uiPort: config.temporal.uiPort,
      };
  return {
    embeddedPostgres,
    databaseUrl: config.database.url ?? embeddedPostgresUrl(embeddedPostgres!.port, embeddedPostgres!.database),
    embeddedTemporal,
    temporalAddress: config.temporal.address ?? `${embeddedTemporal!.host}:${embeddedTemporal!.port}`,
    cookieSecretFile: config.secrets.generated ? path.join(config.dataDir, 'dev-cookie-secret') : null,
    credentialKeyFile: config.secrets.credentialKeysGenerated ? path.join(config.dataDir, 'dev-credential-key') : null,
  };
}

/** The development cookie secret is unusable (too short, e.g. edited by hand). */
export class LocalSecretError extends Error {}

/**
 * A development secret in `file` (the cookie secret, the credential key), created on first use. Kept in
 * DATA_DIR so that sessions survive restarts and so that whatever was encrypted with it (the OAuth signing
 * keys, channel credentials) stays readable to the next run, to the worker and to the CLI. A new secret is written to a file of its own and then hard-linked into place, which
 * fails if the file exists: a CLI and a dev stack starting together agree on one secret, and neither can
 * read a file that exists but is not yet written.
 */
async function readOrCreateSecret(file: string, what: string, variable: string): Promise<string> {
  await fs.mkdir(path.dirname(file), { recursive: true });
  const draft = `${file}.${process.pid}.${randomBytes(4).toString('hex')}`;
  await fs.writeFile(draft, randomBytes(32).toString('base64url'), { mode: 0o600 });
  try {
    await fs.link(draft, file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  } finally {
    await fs.rm(draft, { force: true });
  }
  const secret = (await fs.readFile(file, 'utf8')).trim();
  if (secret.length < MIN_SECRET_LENGTH) {
    throw new LocalSecretError(
      `The development ${what} in ${file} is shorter than ${MIN_SECRET_LENGTH} characters; restore it, or set ${variable} to the API's`,
    );
  }
  return secret;
}

/** The config with the local service addresses filled in where none were configured (no I/O). */
export function withLocalServices(config: Config): Config {
  const local = localServices(config);
  return {
    ...config,
    database: { ...config.database, url: local.databaseUrl },
    temporal: { ...config.temporal, address: local.temporalAddress },
  };
}

/**
 * The config the dev stack's processes and the CLI run with: local service addresses filled in, and the cookie
 * secret and credential key kept in DATA_DIR in place of per-process random ones (read, or created on first use).
 */
export async function resolveLocalConfig(config: Config): Promise<Config> {
  const resolved = withLocalServices(config);
  const { cookieSecretFile, credentialKeyFile } = localServices(config);
  const secrets = { ...resolved.secrets };
  if (cookieSecretFile) {
    secrets.cookieKeys = [await readOrCreateSecret(cookieSecretFile, 'cookie secret', 'COOKIE_SECRETS')];
    secrets.generated = false;
  }
  if (credentialKeyFile) {
    secrets.credentialKeys = [await readOrCreateSecret(credentialKeyFile, 'credential key', 'CREDENTIAL_KEYS')];
    secrets.credentialKeysGenerated = false;
  }
  return { ...resolved, secrets };
}

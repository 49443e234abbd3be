/**
 * How the API, the worker and the CLI reach a Temporal cluster that is not the local dev server: TLS, mutual TLS
 * and Temporal Cloud's API keys (docs/temporal.md). Part of the configuration: `config.ts` spreads the variables
 * into its schema and calls `resolveTemporalSecurity` once, at start-up.
 *
 * The variables carry Temporal's own names (its CLI and SDKs read the same ones), so an operator can reuse the
 * environment they already give `temporal`. Certificates and keys are read here, once: a missing, unreadable or
 * mismatched file stops the process at start-up with a message naming the variable, never with the file's content.
 */
import { X509Certificate, createPrivateKey } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { z } from 'zod';

const optionalText = z
  .string()
  .trim()
  .optional()
  .transform((value) => (value === '' ? undefined : value));

/** Unset (`undefined`) is not the same as false: TLS then follows from the other settings. */
const optionalFlag = z
  .enum(['true', 'false', '1', '0', ''], { error: 'must be true or false' })
  .optional()
  .transform((value) => (value === undefined || value === '' ? undefined : value === 'true' || value === '1'));

export const TEMPORAL_SECURITY_ENV = {
  TEMPORAL_TLS: optionalFlag,
  TEMPORAL_TLS_SERVER_CA_CERT_PATH: optionalText,
  TEMPORAL_TLS_SERVER_CA_CERT_DATA: optionalText,
  TEMPORAL_TLS_CLIENT_CERT_PATH: optionalText,
  TEMPORAL_TLS_CLIENT_CERT_DATA: optionalText,
  TEMPORAL_TLS_CLIENT_KEY_PATH: optionalText,
  TEMPORAL_TLS_CLIENT_KEY_DATA: optionalText,
  TEMPORAL_TLS_SERVER_NAME: optionalText,
  TEMPORAL_API_KEY: optionalText,
};

type SecurityEnv = { [K in keyof typeof TEMPORAL_SECURITY_ENV]: z.output<(typeof TEMPORAL_SECURITY_ENV)[K]> };

export interface TemporalTls {
  /** The CA that signed the server's certificate; unset trusts the system's CAs (Temporal Cloud's are public). */
  serverRootCaCertificate: Buffer | undefined;
  /** Mutual TLS: the certificate and key this process presents. */
  clientCertPair: { crt: Buffer; key: Buffer } | undefined;
  /** The name checked against the server's certificate when it differs from the address's host. */
  serverNameOverride: string | undefined;
}

export interface TemporalSecurity {
  /** `null`: plaintext gRPC (the local dev server, or a cluster on a trusted private network). */
  tls: TemporalTls | null;
  /** Sent as `Authorization: Bearer …` (Temporal Cloud API-key namespaces); requires TLS. */
  apiKey: string | undefined;
  /** What is configured, without any secret: what `JSON.stringify` and a logger see of this object. */
  toJSON(): Record<string, unknown>;
}

/** PEM put in an environment variable is often written on one line with `\n` escapes (env files, CI secrets). */
function pemText(data: string): string {
  return data.includes('\n') ? data : data.replace(/\\n/g, '\n');
}

/**
 * The PEM from the `_PATH` or the `_DATA` variable of one setting, or `undefined` when neither is set. Problems
 * name the variable and, for a file, its path and the system's reason; never the content.
 */
function pemFrom(env: SecurityEnv, setting: 'SERVER_CA_CERT' | 'CLIENT_CERT' | 'CLIENT_KEY', problems: string[]) {
  const pathVariable = `TEMPORAL_TLS_${setting}_PATH` as const;
  const dataVariable = `TEMPORAL_TLS_${setting}_DATA` as const;
  const file = env[pathVariable];
  const data = env[dataVariable];
  if (file && data) {
    problems.push(`set ${pathVariable} or ${dataVariable}, not both`);
    return undefined;
  }
  if (data) return { variable: dataVariable, pem: Buffer.from(pemText(data)) };
  if (!file) return undefined;
  try {
    return { variable: `${pathVariable} (${file})`, pem: readFileSync(file) };
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
    problems.push(`${pathVariable} names a file that cannot be read: ${file} (${reason})`);
    return undefined;
  }
}

function certificate(source: { variable: string; pem: Buffer }, problems: string[]): X509Certificate | undefined {
  try {
    return new X509Certificate(source.pem);
  } catch {
    problems.push(`${source.variable} is not a PEM certificate (-----BEGIN CERTIFICATE-----)`);
    return undefined;
  }
}

/**
 * The security settings, or problems (pushed onto `problems`, one line per variable) when they are unusable or
 * contradict each other. `address` is TEMPORAL_ADDRESS as configured (unset means the local dev server).
 */
export function resolveTemporalSecurity(
  env: SecurityEnv,
  address: string | undefined,
  problems: string[],
): TemporalSecurity {
  const start = problems.length;
  const serverCa = pemFrom(env, 'SERVER_CA_CERT', problems);
  const clientCert = pemFrom(env, 'CLIENT_CERT', problems);
  const clientKey = pemFrom(env, 'CLIENT_KEY', problems);
  const serverName = env.TEMPORAL_TLS_SERVER_NAME;
  const apiKey = env.TEMPORAL_API_KEY;

  const tlsSettings = [
    ['TEMPORAL_TLS_SERVER_CA_CERT_PATH/_DATA', serverCa],
    ['TEMPORAL_TLS_CLIENT_CERT_PATH/_DATA', clientCert],
    ['TEMPORAL_TLS_CLIENT_KEY_PATH/_DATA', clientKey],
    ['TEMPORAL_TLS_SERVER_NAME', serverName],
  ] as const;
  const givenTls = tlsSettings.filter(([, value]) => value !== undefined).map(([name]) => name);
  // As in Temporal's own clients: an API key or any TLS setting turns TLS on unless TEMPORAL_TLS says otherwise.
  const tlsOn = env.TEMPORAL_TLS ?? (givenTls.length > 0 || apiKey !== undefined);

  if (env.TEMPORAL_TLS === false) {
    if (apiKey)
      problems.push('TEMPORAL_API_KEY requires TLS: remove TEMPORAL_TLS=false (an API key is never sent in clear)');
    if (givenTls.length)
      problems.push(`TEMPORAL_TLS=false contradicts ${givenTls.join(', ')}: remove one or the other`);
  }
  if (!address && (tlsOn || apiKey)) {
    problems.push(
      'TEMPORAL_TLS, TEMPORAL_TLS_* and TEMPORAL_API_KEY need TEMPORAL_ADDRESS: the local Temporal dev server (used when it is unset) serves plaintext only',
    );
  }
  if (clientCert && !clientKey)
    problems.push('TEMPORAL_TLS_CLIENT_CERT_PATH/_DATA needs TEMPORAL_TLS_CLIENT_KEY_PATH/_DATA');
  if (clientKey && !clientCert)
    problems.push('TEMPORAL_TLS_CLIENT_KEY_PATH/_DATA needs TEMPORAL_TLS_CLIENT_CERT_PATH/_DATA');

  if (serverCa) certificate(serverCa, problems);
  if (clientCert && clientKey) {
    const cert = certificate(clientCert, problems);
    let key: ReturnType<typeof createPrivateKey> | undefined;
    try {
      key = createPrivateKey(clientKey.pem);
    } catch {
      problems.push(`${clientKey.variable} is not a PEM private key (-----BEGIN PRIVATE KEY-----)`);
    }
    if (cert && key && !cert.checkPrivateKey(key)) {
      problems.push(`${clientKey.variable} is not the private key of ${clientCert.variable}`);
    }
  }

  const tls: TemporalTls | null =
    tlsOn && problems.length === start
      ? {
          serverRootCaCertificate: serverCa?.pem,
          clientCertPair: clientCert && clientKey ? { crt: clientCert.pem, key: clientKey.pem } : undefined,
          serverNameOverride: serverName,
        }
      : null;
  return {
    tls,
    apiKey,
    toJSON: () => ({
      tls: tls !== null,
      serverCa: serverCa ? 'configured' : 'system',
      clientCertificate: tls?.clientCertPair ? 'configured' : 'none',
      serverNameOverride: serverName ?? null,
      apiKey: apiKey ? '[redacted]' : null,
    }),
  };
}

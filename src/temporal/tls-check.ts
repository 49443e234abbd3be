/**
 * A TLS pre-flight for Temporal connections (`connection.ts` runs it before gRPC connects). Kept free of the
 * Temporal SDK so that the CLI's error reporting can name `TemporalTlsError` without loading the client.
 */
import net from 'node:net';
import tls from 'node:tls';
import type { Config } from '../config.ts';

/** The TLS connection to Temporal failed: the server's certificate, the client's, or a server without TLS. */
export class TemporalTlsError extends Error {
  constructor(message: string, cause?: unknown) {
    super(message, { cause });
    this.name = 'TemporalTlsError';
  }
}

/** Socket errors that mean "nothing answers there (yet)": gRPC's own retries and messages handle those. */
const UNREACHABLE = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'ETIMEDOUT']);

/** The HTTP/2 client preface and an empty SETTINGS frame: a gRPC server answers with its own SETTINGS. */
const HTTP2_PREFACE = Buffer.concat([
  Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n'),
  Buffer.from([0, 0, 0, 4, 0, 0, 0, 0, 0]),
]);

/** Node's verification codes that all mean: the server's certificate chain does not lead to a CA we trust. */
const UNTRUSTED = new Set([
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
]);

/** The reason in the operator's terms; Node's own text suggests `--use-system-ca`, which is not the fix here. */
function tlsReason(error: NodeJS.ErrnoException): string {
  if (error.code && UNTRUSTED.has(error.code)) {
    return `the server's certificate is not signed by the CA this process trusts (TEMPORAL_TLS_SERVER_CA_CERT_PATH/_DATA, or the system's CAs when unset) [${error.code}]`;
  }
  return error.message.split(';')[0]!;
}

/**
 * One TLS handshake with the configured settings before gRPC connects. gRPC retries a failed handshake quietly
 * until its deadline and then reports "Failed to connect before the deadline", which hides the reason (wrong CA,
 * certificate issued to another name, client certificate refused, a server without TLS); this names it, at once.
 * The probe waits for the server's first HTTP/2 bytes, because a server that refuses the client's certificate
 * says so only after the client's side of the handshake has completed. An address where nothing answers is left
 * to gRPC, as without TLS.
 */
export async function checkTemporalTls(temporal: Config['temporal'], address: string): Promise<void> {
  const settings = temporal.security.tls;
  if (!settings) return;
  const separator = address.lastIndexOf(':');
  const host = address.slice(0, separator);
  const port = Number(address.slice(separator + 1));
  await new Promise<void>((resolve, reject) => {
    let handshakeDone = false;
    const socket = tls.connect({
      host,
      port,
      servername: settings.serverNameOverride ?? (net.isIP(host) ? undefined : host),
      ...(settings.serverRootCaCertificate && { ca: settings.serverRootCaCertificate }),
      ...(settings.clientCertPair && { cert: settings.clientCertPair.crt, key: settings.clientCertPair.key }),
      ALPNProtocols: ['h2'],
    });
    const finish = (error?: TemporalTlsError) => {
      socket.destroy();
      if (error) reject(error);
      else resolve();
    };
    socket.setTimeout(10_000, () => finish());
    socket.once('secureConnect', () => {
      handshakeDone = true;
      socket.write(HTTP2_PREFACE);
    });
    socket.once('data', () => finish());
    socket.once('error', (error: NodeJS.ErrnoException) => {
      if (!handshakeDone && error.code && UNREACHABLE.has(error.code)) return finish();
      finish(new TemporalTlsError(`TLS connection to Temporal at ${address} failed: ${tlsReason(error)}`, error));
    });
    socket.once('close', () =>
      finish(
        new TemporalTlsError(
          `Temporal at ${address} closed the connection after the TLS handshake (does it require a client certificate this process does not have?)`,
        ),
      ),
    );
  });
}

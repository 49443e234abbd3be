/**
 * A throw-away PKI for TLS tests, made with the machine's `openssl` (Node's crypto can make keys but cannot sign
 * certificates): a CA, a server certificate signed by it, a client certificate signed by it, and an unrelated CA
 * that a misconfigured client would trust instead. EC P-256 keys, valid for one day, in a temporary folder.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface TestPki {
  dir: string;
  caCert: string;
  /** Signed by the CA for the DNS names and IP addresses asked for. */
  serverCert: string;
  serverKey: string;
  /** Signed by the CA for client authentication (mutual TLS). */
  clientCert: string;
  clientKey: string;
  /** A CA that signed none of the above. */
  otherCaCert: string;
  remove(): Promise<void>;
}

async function openssl(dir: string, args: string[]): Promise<void> {
  try {
    await run('openssl', args, { cwd: dir });
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'openssl is not installed' : String(error);
    throw new Error(`could not make the test certificates: ${reason}`, { cause: error });
  }
}

async function selfSignedCa(dir: string, name: string): Promise<void> {
  await openssl(dir, [
    'req',
    '-x509',
    '-newkey',
    'ec',
    '-pkeyopt',
    'ec_paramgen_curve:prime256v1',
    '-nodes',
    '-days',
    '1',
    '-subj',
    `/CN=${name}`,
    '-addext',
    'basicConstraints=critical,CA:TRUE',
    '-addext',
    'keyUsage=critical,keyCertSign,cRLSign',
    '-keyout',
    `${name}.key`,
    '-out',
    `${name}.crt`,
  ]);
}

async function signedLeaf(dir: string, name: string, extensions: string): Promise<void> {
  await openssl(dir, [
    'req',
    '-newkey',
    'ec',
    '-pkeyopt',
    'ec_paramgen_curve:prime256v1',
    '-nodes',
    '-subj',
    `/CN=${name}`,
    '-keyout',
    `${name}.key`,
    '-out',
    `${name}.csr`,
  ]);
  await fs.writeFile(path.join(dir, `${name}.ext`), extensions);
  await openssl(dir, [
    'x509',
    '-req',
    '-in',
    `${name}.csr`,
    '-CA',
    'ca.crt',
    '-CAkey',
    'ca.key',
    '-CAcreateserial',
    '-days',
    '1',
    '-extfile',
    `${name}.ext`,
    '-out',
    `${name}.crt`,
  ]);
}

export async function createTestPki(server: { dnsNames: string[]; ips: string[] }): Promise<TestPki> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'test-pki-'));
  await selfSignedCa(dir, 'ca');
  await selfSignedCa(dir, 'other-ca');
  const altNames = [...server.dnsNames.map((name) => `DNS:${name}`), ...server.ips.map((ip) => `IP:${ip}`)];
  await signedLeaf(
    dir,
    'server',
    `subjectAltName=${altNames.join(',')}\nextendedKeyUsage=serverAuth\nkeyUsage=critical,digitalSignature\n`,
  );
  await signedLeaf(dir, 'client', 'extendedKeyUsage=clientAuth\nkeyUsage=critical,digitalSignature\n');
  const file = (name: string) => path.join(dir, name);
  return {
    dir,
    caCert: file('ca.crt'),
    serverCert: file('server.crt'),
    serverKey: file('server.key'),
    clientCert: file('client.crt'),
    clientKey: file('client.key'),
    otherCaCert: file('other-ca.crt'),
    remove: () => fs.rm(dir, { recursive: true, force: true }),
  };
}

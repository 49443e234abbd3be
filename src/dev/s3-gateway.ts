/**
 * A real S3-compatible server for the tests of the S3 media store: the Versity S3 Gateway (`versitygw`,
 * Apache-2.0) over a local directory, which verifies SigV4 signatures like any S3 service. Built from its Go
 * module on first use (see `go-tools.ts`); `S3_GATEWAY_PATH` names a binary instead.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs/promises';
import net from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { locateGoTool, type GoTool, type LocateOptions } from './go-tools.ts';

export const S3_GATEWAY: GoTool = {
  title: 'Versity S3 gateway',
  module: 'github.com/versity/versitygw/cmd/versitygw',
  version: 'v1.8.0',
  binary: 'versitygw',
  probeArgs: ['--version'],
  alternatives: ['set S3_GATEWAY_PATH to a versitygw binary'],
};

export function locateS3Gateway(options: LocateOptions) {
  return locateGoTool(S3_GATEWAY, options);
}

export interface RunningS3Gateway {
  endpoint: string;
  accessKeyId: string;
  secretAccessKey: string;
  stop(): Promise<void>;
}

async function accepting(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: '127.0.0.1', port }, () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** Starts the gateway on 127.0.0.1:`port`, storing buckets as directories under `dataDir`. */
export async function startS3Gateway(options: {
  binary: string;
  dataDir: string;
  port: number;
  accessKeyId: string;
  secretAccessKey: string;
}): Promise<RunningS3Gateway> {
  await fs.mkdir(options.dataDir, { recursive: true });
  const child: ChildProcess = spawn(
    options.binary,
    ['--port', `127.0.0.1:${options.port}`, '--quiet', 'posix', options.dataDir],
    {
      // Credentials through the environment, never on a command line that `ps` shows.
      env: { ROOT_ACCESS_KEY: options.accessKeyId, ROOT_SECRET_KEY: options.secretAccessKey },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let output = '';
  const keep = (chunk: Buffer) => (output = (output + chunk.toString('utf8')).slice(-4000));
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const deadline = Date.now() + 20_000;
  while (!(await accepting(options.port))) {
    if (child.exitCode !== null) throw new Error(`versitygw exited with code ${child.exitCode}:\n${output}`);
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`versitygw did not listen on port ${options.port} within 20 s:\n${output}`);
    }
    await sleep(50);
  }
  return {
    endpoint: `http://127.0.0.1:${options.port}`,
    accessKeyId: options.accessKeyId,
    secretAccessKey: options.secretAccessKey,
    stop: async () => {
      if (child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await Promise.race([exited, sleep(5_000).then(() => child.kill('SIGKILL'))]);
    },
  };
}

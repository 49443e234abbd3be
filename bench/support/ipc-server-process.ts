/**
 * Runs a benchmark server in its own Node process with an IPC channel: the server announces itself with a
 * `{ type: 'ready', ... }` message and answers `{ type, id }` commands with replies carrying the same id.
 * (`server-process.ts` reads a ready line from stdout and has no channel back; heap samples and CPU profiles
 * of the server need one.)
 */
import { fork, type ChildProcess } from 'node:child_process';

/** `Omit` applied to each member of a union (plain `Omit` collapses the union to its common keys). */
export type OmitEach<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

export interface IpcServerProcess<Ready, Command extends { type: string; id: number }, Reply extends { id: number }> {
  info: Ready;
  child: ChildProcess;
  /** Sends a command and resolves with the reply of the same id (a `{ type: 'failed' }` reply rejects). */
  command(command: OmitEach<Command, 'id'>): Promise<Reply>;
  stop(): Promise<void>;
}

export async function startIpcServerProcess<
  Ready extends { type: 'ready' },
  Command extends { type: string; id: number },
  Reply extends { id: number; type: string },
>(
  script: string,
  options: { env: Record<string, string>; execArgv?: string[] },
): Promise<IpcServerProcess<Ready, Command, Reply>> {
  const child = fork(script, [], {
    env: { ...process.env, ...options.env },
    execArgv: options.execArgv ?? [],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const pending = new Map<number, { resolve: (reply: Reply) => void; reject: (error: Error) => void }>();
  let nextId = 1;
  const info = await new Promise<Ready>((resolve, reject) => {
    const onExit = (code: number | null) => reject(new Error(`${script} exited with ${code} before it was ready`));
    child.once('exit', onExit);
    child.on('message', (message: Ready | Reply) => {
      if (message.type === 'ready') {
        child.off('exit', onExit);
        resolve(message as Ready);
        return;
      }
      const reply = message as Reply;
      const waiter = pending.get(reply.id);
      if (!waiter) return;
      pending.delete(reply.id);
      if (reply.type === 'failed') waiter.reject(new Error((reply as unknown as { message: string }).message));
      else waiter.resolve(reply);
    });
  });
  child.once('exit', (code) => {
    for (const waiter of pending.values()) waiter.reject(new Error(`${script} exited with ${code}`));
    pending.clear();
  });
  return {
    info,
    child,
    command(command) {
      const id = nextId++;
      return new Promise<Reply>((resolve, reject) => {
        pending.set(id, { resolve, reject });
        child.send({ ...command, id });
      });
    },
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

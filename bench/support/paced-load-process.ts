/**
 * `pacedLoad` in a process of its own, for latency below saturation: a paced request's latency counts from
 * when it was due, so a garbage-collection pause of the process that sends it is counted as the server's
 * time. In the benchmark's own process (which holds the recorded clients, autocannon's results and every
 * case's expectations) those pauses reached 50–90 ms (docs/benchmarks.md, "Garbage-collection pauses"); this
 * process holds only the requests of the run it is sending.
 *
 * Started by `startPacedLoadProcess` (a fork with an IPC channel, like the benchmark servers). Each `paced`
 * command carries the requests, already built, and what every answer must be; the reply carries the result
 * and this process's CPU time during the run (the load generator's share of the machine).
 */
import { pacedLoad, type CheckedLoadResult } from './checked-load.ts';
import { startIpcServerProcess, type IpcServerProcess } from './ipc-server-process.ts';

/** What every answer of a run must be: one fixed body, or fixed bytes around each request's own answer id. */
export type PacedAnswer = { kind: 'fixed'; body: string } | { kind: 'around'; before: string; after: string };

export interface PacedRun {
  label: string;
  url: string;
  method: 'GET' | 'POST';
  connections: number;
  rate: number;
  durationSeconds: number;
  /** Request n of the run; `answerId` is what the answer must carry between `before` and `after`. */
  requests: { headers: Record<string, string>; body?: string; answerId?: string }[];
  answer: PacedAnswer;
}

type Command = { type: 'paced'; id: number; run: PacedRun };
type Reply =
  | { type: 'paced'; id: number; result: CheckedLoadResult; cpuMicros: number }
  | { type: 'failed'; id: number; message: string };

export type PacedLoadProcess = IpcServerProcess<{ type: 'ready' }, Command, Reply>;

export function startPacedLoadProcess(): Promise<PacedLoadProcess> {
  return startIpcServerProcess<{ type: 'ready' }, Command, Reply>(import.meta.filename, { env: {} });
}

/** Sends one run from the child process; resolves with its result and the child's CPU time meanwhile. */
export async function pacedLoadIn(
  child: PacedLoadProcess,
  run: PacedRun,
): Promise<{ result: CheckedLoadResult; cpuMicros: number }> {
  const reply = await child.command({ type: 'paced', run });
  if (reply.type !== 'paced') throw new Error(`paced load answered ${reply.type}`);
  return reply;
}

/** Why `body` is not exactly `before`, the request's id, `after` (the benchmarks' reference answers), or null. */
export function notAnswerAround(body: string, before: string, id: string, after: string): string | null {
  const right =
    body.length === before.length + id.length + after.length &&
    body.startsWith(before) &&
    body.endsWith(after) &&
    body.slice(before.length, before.length + id.length) === id;
  return right ? null : `not the reference answer with id ${id}: ${body.slice(0, 300)}`;
}

function checkAnswer(body: string, answer: PacedAnswer, answerId: string | undefined): string | null {
  if (answer.kind === 'fixed') return body === answer.body ? null : `unexpected body ${body.slice(0, 200)}`;
  return notAnswerAround(body, answer.before, answerId ?? '', answer.after);
}

async function send(run: PacedRun): Promise<{ result: CheckedLoadResult; cpuMicros: number }> {
  const before = process.cpuUsage();
  const result = await pacedLoad({
    label: run.label,
    url: run.url,
    method: run.method,
    connections: run.connections,
    rate: run.rate,
    durationSeconds: run.durationSeconds,
    prepare: (n) => {
      const request = run.requests[n % run.requests.length]!;
      return { headers: request.headers, body: request.body, expect: request.answerId };
    },
    check: (body, answerId) => checkAnswer(body, run.answer, answerId),
  });
  const used = process.cpuUsage(before);
  return { result, cpuMicros: used.user + used.system };
}

// Run as the child: answer commands until the parent goes away.
if (process.send && process.argv[1] === import.meta.filename) {
  process.on('message', (message: Command) => {
    void send(message.run).then(
      (sent) => process.send!({ type: 'paced', id: message.id, ...sent } satisfies Reply),
      (error: unknown) => process.send!({ type: 'failed', id: message.id, message: String(error) } satisfies Reply),
    );
  });
  process.on('disconnect', () => process.exit(0));
  process.send({ type: 'ready' });
}

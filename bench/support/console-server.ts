/**
 * Benchmark server for the console pages (bench/console.ts starts it in its own process, so the load generator
 * does not share its event loop). It serves the database the benchmark seeded and listens twice:
 *   - bare: a Koa route answering a static dashboard-sized HTML page from memory (the page shell and its CSS
 *           around a 50-row table), with the same headers a console page carries: the baseline;
 *   - app:  the real application (`createHttpApp`): host dispatch, session, membership, the console pages.
 * Prints one JSON line `{ ready, bare, app, platformHost, bareBytes }` when listening.
 *
 * With BENCH_PROFILE_FILE set, SIGUSR2 starts a V8 CPU profile of this process (through `node:inspector`, no
 * debugger port) and counts the SQL statements sent meanwhile; the next SIGUSR2 writes the profile to that file
 * and the statement counts to `<file>.sql.json`, and prints `{"profiled":"<file>"}`. (A CPU profile does not
 * follow `await`: the ORM work of a page shows up without the page's code above it, so the statements it
 * sends are what tell a page issuing one query per row from a page with one slow query.)
 */
import fs from 'node:fs/promises';
import http from 'node:http';
import { Session } from 'node:inspector/promises';
import Koa from 'koa';
import pg from 'pg';
import { loadConfigOrExit, processEnv } from '../../src/config.ts';
import { createContainer } from '../../src/container.ts';
import { createHttpApp } from '../../src/http/app.ts';
import { createLogger } from '../../src/logger.ts';
import { html, page } from '../../src/views/html.ts';

export interface ConsoleServerInfo {
  ready: true;
  bare: number;
  app: number;
  platformHost: string;
  bareBytes: number;
}

const config = loadConfigOrExit(processEnv());
const log = createLogger({ level: 'silent', name: 'bench' });
const container = await createContainer(config, { log, migrate: false });
const { listener } = createHttpApp(container);

const rows = Array.from(
  { length: 50 },
  (_, i) =>
    html`<tr>
      <td>Campaign no. ${i + 1}</td>
      <td>published</td>
      <td>3</td>
      <td>2026-11-${String((i % 27) + 1).padStart(2, '0')}</td>
    </tr>`,
);
const barePage = page({
  title: 'Bare page',
  body: html`<h1>Bare page</h1>
    <table class="stack">
      <thead>
        <tr>
          <th scope="col">Name</th>
          <th scope="col">Status</th>
          <th scope="col">Variants</th>
          <th scope="col">Last change</th>
        </tr>
      </thead>
      <tbody>
        ${rows}
      </tbody>
    </table>`,
});
const bare = new Koa();
bare.use((ctx) => {
  ctx.type = 'html';
  ctx.set('cache-control', 'no-store');
  ctx.body = barePage;
});

function listen(requestListener: http.RequestListener, port = 0): Promise<number> {
  return new Promise((resolve) => {
    const server = http.createServer(requestListener);
    server.keepAliveTimeout = 65_000;
    server.listen(port, '127.0.0.1', () => resolve((server.address() as { port: number }).port));
  });
}

const info: ConsoleServerInfo = {
  ready: true,
  bare: await listen(bare.callback()),
  app: await listen(listener, config.http.port),
  platformHost: new URL(config.urls.platform).host,
  bareBytes: Buffer.byteLength(barePage),
};
process.stdout.write(`${JSON.stringify(info)}\n`);

/** Statement texts (whitespace folded) and how often each was sent while profiling. */
const statements = new Map<string, number>();
let counting = false;

/** Counts every statement a pg client sends (MikroORM's pool and the prepared statements alike). */
function countStatements(): void {
  const prototype = pg.Client.prototype as unknown as { query: (...args: unknown[]) => unknown };
  const send = prototype.query;
  prototype.query = function (this: unknown, ...args: unknown[]) {
    if (counting) {
      const first = args[0] as string | { text?: string; name?: string } | undefined;
      const text = typeof first === 'string' ? first : (first?.text ?? `prepared ${first?.name ?? '?'}`);
      // Literals folded, so the same statement for another row counts as the same statement.
      const key = text
        .replace(/'(?:[^']|'')*'/g, '?')
        .replace(/\b\d+\b/g, 'N')
        .replace(/\s+/g, ' ')
        .trim()
        .slice(0, 400);
      statements.set(key, (statements.get(key) ?? 0) + 1);
    }
    return send.apply(this, args);
  };
}

const profileFile = processEnv().BENCH_PROFILE_FILE;
if (profileFile) {
  countStatements();
  const profiler = new Session();
  let profiling = false;
  process.on('SIGUSR2', () => {
    void (async () => {
      if (!profiling) {
        profiling = true;
        profiler.connect();
        await profiler.post('Profiler.enable');
        await profiler.post('Profiler.setSamplingInterval', { interval: 200 });
        await profiler.post('Profiler.start');
        statements.clear();
        counting = true;
        process.stdout.write(`${JSON.stringify({ profiling: true })}\n`);
        return;
      }
      profiling = false;
      counting = false;
      const { profile } = await profiler.post('Profiler.stop');
      profiler.disconnect();
      await fs.writeFile(profileFile, JSON.stringify(profile));
      await fs.writeFile(`${profileFile}.sql.json`, JSON.stringify([...statements].sort((a, b) => b[1] - a[1])));
      process.stdout.write(`${JSON.stringify({ profiled: profileFile })}\n`);
    })();
  });
}

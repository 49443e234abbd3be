/**
 * Benchmark server for the authenticate + rate-limit path (a separate process, so the load generator does
 * not share its event loop). Two listeners in one process, measured one after the other:
 *   - bare:    a Koa JSON route, nothing else (the baseline);
 *   - guarded: the same route behind the tool server's real request-id, error boundary, Origin check,
 *              authentication (API key → SHA-256 → indexed lookup + membership) and PostgreSQL sliding-log limiter.
 * Prints one JSON line `{ ready, bare, guarded, keys }` when listening.
 */
import http from 'node:http';
import Koa from 'koa';
import { loadConfigOrExit, processEnv } from '../../src/config.ts';
import { createContainer } from '../../src/container.ts';
import { toolServerAuthentication, toolServerOriginCheck } from '../../src/http/middleware/authenticate.ts';
import { errorBoundary, renderErrorsWith, renderJsonRpc } from '../../src/http/middleware/error-boundary.ts';
import { toolServerRateLimit } from '../../src/http/middleware/rate-limit.ts';
import { requestId } from '../../src/http/middleware/request-id.ts';
import { createLogger } from '../../src/logger.ts';
import { acrossWorkspaces } from '../../src/domain/shared/scope.ts';

const config = loadConfigOrExit(processEnv());
const log = createLogger({ level: 'silent', name: 'bench' });
const container = await createContainer(config, { log, migrate: false });
const { workspaces } = container.services;
const em = acrossWorkspaces(container.orm.em);
const owner = await workspaces.createUser(em, { email: `bench-${Date.now()}@example.test`, name: 'Bench' });
const workspace = await workspaces.createWorkspace(em, { name: 'Bench', ownerUserId: owner.id });
const keys: string[] = [];
for (let i = 0; i < Number(processEnv().BENCH_KEYS ?? 200); i += 1) {
  keys.push(
    (await workspaces.createApiKey(em, workspace.id, { name: `k${i}`, role: 'editor', createdByUserId: owner.id }))
      .secret,
  );
}

const payload = { ok: true };
const bare = new Koa();
bare.use((ctx) => {
  ctx.body = payload;
});

const guarded = new Koa();
guarded.use(requestId());
guarded.use(errorBoundary(log));
guarded.use(renderErrorsWith(renderJsonRpc));
guarded.use(toolServerOriginCheck(config));
guarded.use(toolServerAuthentication(config, container.authenticator));
guarded.use(
  toolServerRateLimit(container.services.rateLimiter, {
    name: 'tool-server',
    limit: config.rateLimitPerMinute,
    windowSeconds: 60,
  }),
);
guarded.use((ctx) => {
  ctx.body = payload;
});

function listen(app: Koa): Promise<number> {
  return new Promise((resolve) => {
    const server = http.createServer(app.callback());
    server.keepAliveTimeout = 65_000;
    server.listen(0, '127.0.0.1', () => resolve((server.address() as { port: number }).port));
  });
}

const [barePort, guardedPort] = [await listen(bare), await listen(guarded)];
process.stdout.write(`${JSON.stringify({ ready: true, bare: barePort, guarded: guardedPort, keys })}\n`);

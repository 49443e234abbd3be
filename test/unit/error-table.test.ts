/**
 * The one error table (src/errors.ts) is total, and the three edges (plus the CLI's failure line) render any
 * AppError from it: a new AppError subclass reaches clients with its code, its table status and JSON-RPC code,
 * and its retry rule, without any edge naming it.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import Koa from 'koa';
import { ApplicationFailure } from '@temporalio/common';
import { translateErrors } from '../../activities/support/activity-errors.ts';
import { describeFailure } from '../../src/cli/failures.ts';
import { loadConfig } from '../../src/config.ts';
import { AppError, ERROR_TABLE, isErrorCode, JSON_RPC } from '../../src/errors.ts';
import { errorBoundary, renderErrorsWith, renderJsonRpc } from '../../src/http/middleware/error-boundary.ts';
import { createLogger } from '../../src/logger.ts';
import { safeProtocolError } from '../../src/mcp/server-factory.ts';
import { ERROR_META_KEY, toToolError } from '../../src/mcp/tool-result.ts';

const log = createLogger({ level: 'silent', name: 'test' });

/** An error no edge has ever heard of: only its code is known, from the table. */
class KettleBoiledDryError extends AppError {
  constructor() {
    super('conflict', 'The kettle boiled dry', { litres: 0 });
  }
}

/** A retryable one, to see the activity edge read the retry rule. */
class KettleOfflineError extends AppError {
  constructor() {
    super('unavailable', 'The kettle is offline');
  }
}

describe('ERROR_TABLE', () => {
  it('gives every code an HTTP error status, a JSON-RPC error code and a retry rule', () => {
    const jsonRpcCodes = new Set<number>(Object.values(JSON_RPC));
    for (const [code, spec] of Object.entries(ERROR_TABLE)) {
      expect([code, spec.status >= 400 && spec.status <= 599]).toEqual([code, true]);
      expect([code, jsonRpcCodes.has(spec.jsonRpc)]).toEqual([code, true]);
      expect([code, typeof spec.retryable]).toEqual([code, 'boolean']);
      expect(code).toMatch(/^[a-z]+(_[a-z]+)*$/);
    }
  });

  it('lists every code the code base throws, refuses with or ends a job with', () => {
    // The literal code arguments of the places that produce client-visible codes. ErrorCode already makes
    // the compiler check AppError's callers; this also covers workflows (which may not import src/errors.ts),
    // job fallbacks and ApplicationFailure types.
    const patterns = [
      /super\(\s*'([a-z_]+)'/g,
      /new (?:AppError|RequestRefusedError|UnauthenticatedError|AskRequestError)\(\s*'([a-z_]+)'/g,
      /\brefused\(\s*'([a-z_]+)'/g,
      /toolError\(\s*'([a-z_]+)'/g,
      /\btype:\s*'([a-z_]+)'/g,
      /\bcode:\s*'([a-z_]+)'/g,
    ];
    const files: string[] = [];
    const walk = (dir: string) => {
      for (const name of readdirSync(dir)) {
        const full = path.join(dir, name);
        if (statSync(full).isDirectory()) walk(full);
        else if (full.endsWith('.ts')) files.push(full);
      }
    };
    for (const dir of ['src', 'activities', 'workflows']) walk(path.resolve(dir));
    const found = new Map<string, string>();
    for (const file of files) {
      const text = readFileSync(file, 'utf8');
      for (const pattern of patterns) {
        for (const match of text.matchAll(pattern)) found.set(match[1]!, path.relative(process.cwd(), file));
      }
    }
    // `code:`/`type:` also match things that are not error codes; those are named here, once each.
    const notErrorCodes = new Set([
      'object', // zod issue / JSON Schema types
      'string',
      'text',
      'resource',
      'image',
      'invalid_request', // also an RFC 6750 challenge code (bearerChallenge); it is in the table anyway
      'invalid_token',
      'http',
      'dns',
      'workflow',
      'error',
      'custom',
      'too_big',
      'module',
      'boolean',
      'json_object', // OpenAI response formats
      'json_schema',
      'conversion', // site event types
      'impression',
      'concierge_question',
      'button', // an HTML button's type (the inspector widget)
    ]);
    const missing = [...found]
      .filter(([code]) => !isErrorCode(code) && !notErrorCodes.has(code))
      .map(([code, file]) => `${code} (${file})`);
    expect(missing).toEqual([]);
  });
});

describe('a new AppError subclass, at each edge', () => {
  it('HTTP: the boundary renders its code and table status, in the router’s registered form', async () => {
    const app = new Koa();
    app.use(errorBoundary(log));
    app.use(async (ctx, next) => {
      if (ctx.path === '/rpc') return renderErrorsWith(renderJsonRpc)(ctx, next);
      await next();
    });
    app.use(() => {
      throw new KettleBoiledDryError();
    });
    const server = http.createServer(app.callback());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as { port: number };
    try {
      const rest = await fetch(`http://127.0.0.1:${port}/rest`);
      expect(rest.status).toBe(409);
      expect(await rest.json()).toEqual({
        error: 'conflict',
        error_description: 'The kettle boiled dry',
        details: { litres: 0 },
      });
      const rpc = await fetch(`http://127.0.0.1:${port}/rpc`);
      expect(rpc.status).toBe(409);
      expect(await rpc.json()).toEqual({
        jsonrpc: '2.0',
        id: null,
        error: {
          code: JSON_RPC.invalidParams,
          message: 'The kettle boiled dry',
          data: { code: 'conflict', litres: 0 },
        },
      });
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('MCP: a tool result with the stable code, and a protocol error that keeps it', () => {
    const result = toToolError(new KettleBoiledDryError(), log, {});
    expect(result).toMatchObject({
      isError: true,
      content: [{ type: 'text', text: 'conflict: The kettle boiled dry' }],
    });
    expect(result._meta?.[ERROR_META_KEY]).toEqual({
      code: 'conflict',
      message: 'The kettle boiled dry',
      details: { litres: 0 },
    });
    const protocol = safeProtocolError('tasks/update', new KettleBoiledDryError(), log);
    expect([protocol.code, protocol.message, protocol.data]).toEqual([
      ERROR_TABLE.conflict.jsonRpc,
      'The kettle boiled dry',
      { code: 'conflict', litres: 0 },
    ]);
  });

  it('activities: a failure typed by its code, retried only when the table says so', async () => {
    const failed = await translateErrors(async () => {
      throw new KettleBoiledDryError();
    }).catch((error: unknown) => error);
    expect(failed).toBeInstanceOf(ApplicationFailure);
    expect(failed).toMatchObject({ type: 'conflict', message: 'The kettle boiled dry', nonRetryable: true });
    const offline = await translateErrors(async () => {
      throw new KettleOfflineError();
    }).catch((error: unknown) => error);
    expect(offline).toMatchObject({ type: 'unavailable', nonRetryable: false });
  });

  it('CLI: one line with the code, exit 1', () => {
    const config = loadConfig({});
    expect(describeFailure(new KettleBoiledDryError(), config, false)).toEqual({
      line: 'Error (conflict): The kettle boiled dry',
      exitCode: 1,
    });
  });
});

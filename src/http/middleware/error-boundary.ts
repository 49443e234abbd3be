/**
 * The HTTP edge of the error model: the one place where an error thrown by a route becomes a response.
 *
 * DO NOT catch errors in routes to answer them yourself, and DO NOT let raw exception text out of here.
 * Routes throw (`AppError`s, or Koa's own `http-errors` for what its body parsers refuse); the status comes
 * from `ERROR_TABLE`; the body's form is the router's: `{ error, error_description }` by default, a JSON-RPC
 * error object on the tool server, a page with a notice on the dashboard. A router picks its form with
 * `renderErrorsWith` before its handlers run. Anything else is logged with a reference id and answered as
 * `internal_error` naming only that id.
 */
import { randomUUID } from 'node:crypto';
import type { Context, Middleware } from 'koa';
import { AppError, ERROR_TABLE, UnauthenticatedError } from '../../errors.ts';
import type { Logger } from '../../logger.ts';
import { jsonRpcError } from '../json-rpc.ts';

/** Writes `error` as the response, with `status` already decided by the boundary. */
export type ErrorRenderer = (ctx: Context, error: AppError, status: number) => void | Promise<void>;

/** `{ error, error_description, details? }`: the API, brand-host and OAuth-helper form (RFC 6749 §5.2 style). */
export const renderJson: ErrorRenderer = (ctx, error, status) => {
  ctx.status = status;
  ctx.body = {
    error: error.code,
    error_description: error.message,
    ...(error.details ? { details: error.details } : {}),
  };
};

/**
 * A JSON-RPC error object, for routes whose clients parse JSON-RPC (the tool server): the code's JSON-RPC code,
 * and `data.code` with the details beside it.
 */
export const renderJsonRpc: ErrorRenderer = (ctx, error, status) =>
  jsonRpcError(ctx, status, ERROR_TABLE[error.code].jsonRpc, error.message, { code: error.code, ...error.details });

/** Errors thrown after this middleware (in the same request) are rendered by `renderer`. */
export function renderErrorsWith(renderer: ErrorRenderer): Middleware {
  return async (ctx, next) => {
    ctx.state.renderError = renderer;
    await next();
  };
}

export function errorBoundary(log: Logger): Middleware {
  return async (ctx, next) => {
    try {
      await next();
    } catch (error) {
      const render: ErrorRenderer = (ctx.state.renderError as ErrorRenderer | undefined) ?? renderJson;
      if (error instanceof AppError) {
        if (error instanceof UnauthenticatedError) ctx.set(error.headers);
        await render(ctx, error, error.status);
        return;
      }
      const status = (error as { status?: number; expose?: boolean }).status;
      if (status && status >= 400 && status < 500 && (error as { expose?: boolean }).expose) {
        // Koa/http-errors thrown by body parsers and routers: safe, client-caused; they keep their status.
        await render(ctx, new AppError('bad_request', (error as Error).message), status);
        return;
      }
      const reference = randomUUID();
      log.error(
        { err: error, reference, requestId: ctx.state.requestId, path: loggablePath(ctx.path) },
        'unhandled error',
      );
      await render(ctx, new AppError('internal_error', `Internal error. Reference: ${reference}`), 500);
    }
  };
}

/**
 * A request path fit for the log: the one-time tokens that invitation and password-reset links carry in their
 * path (`/invitations/<token>`, `/reset-password/<token>`) are bearer secrets, so they are masked.
 */
export function loggablePath(path: string): string {
  return path.replace(/^\/(invitations|reset-password)\/[^/]+/, '/$1/[token]');
}

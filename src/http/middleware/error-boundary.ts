/**
 * The HTTP edge of the error model. DO NOT let raw exception text out of here: `AppError`s become their
 * status and a JSON body `{ error, error_description }`; anything else is logged with a reference id and
 * answered as a 500 naming only that id.
 */
import { randomUUID } from 'node:crypto';
import type { Middleware } from 'koa';
import { AppError } from '../../errors.ts';
import type { Logger } from '../../logger.ts';

export function errorBoundary(log: Logger): Middleware {
  return async (ctx, next) => {
    try {
      await next();
    } catch (error) {
      if (error instanceof AppError) {
        ctx.status = error.status;
        ctx.body = {
          error: error.code,
          error_description: error.message,
          ...(error.details ? { details: error.details } : {}),
        };
        return;
      }
      const status = (error as { status?: number; expose?: boolean }).status;
      if (status && status >= 400 && status < 500 && (error as { expose?: boolean }).expose) {
        // Koa/http-errors thrown by body parsers and routers: safe, client-caused.
        ctx.status = status;
        ctx.body = { error: 'bad_request', error_description: (error as Error).message };
        return;
      }
      const reference = randomUUID();
      log.error({ err: error, reference, requestId: ctx.state.requestId, path: ctx.path }, 'unhandled error');
      ctx.status = 500;
      ctx.body = { error: 'internal_error', error_description: `Internal error. Reference: ${reference}` };
    }
  };
}

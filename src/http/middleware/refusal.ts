/**
 * How an edge middleware refuses a request before its handler runs. The tool server answers in JSON-RPC
 * (its clients read `error.data.code`); REST routes such as `/api/v1/conversions` answer
 * `{error, error_description}` like every other HTTP error here. Authentication and rate limiting are the
 * same middlewares on both; only this last step differs.
 */
import type Koa from 'koa';
import { jsonRpcError, JSON_RPC_SERVER_ERROR } from '../json-rpc.ts';

export type Refusal = (
  ctx: Koa.Context,
  status: number,
  message: string,
  data: { code: string } & Record<string, unknown>,
) => void;

export const jsonRpcRefusal: Refusal = (ctx, status, message, data) =>
  jsonRpcError(ctx, status, JSON_RPC_SERVER_ERROR, message, data);

export const restRefusal: Refusal = (ctx, status, message, data) => {
  ctx.status = status;
  ctx.body = { error: data.code, error_description: message };
};

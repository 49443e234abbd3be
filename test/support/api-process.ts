/**
 * The API in its own OS process (`node src/main.ts`, the production entry point), for tests that kill it the
 * hard way or stop it with a signal. It uses the test platform's database, Temporal namespace, task queue and
 * data folders, on a port of its own (brand hosts are then `http://<slug>.sites.localhost:<port>`).
 */
import type { Config, Env } from '../../src/config.ts';
import { spawnLogged, type LoggedProcess, type ProcessExit } from './logged-process.ts';
import { workerEnv } from './worker-process.ts';

export type ApiExit = ProcessExit;

/** `ready` resolves once the API logged that it is listening. */
export interface ApiProcess extends LoggedProcess {
  port: number;
}

/** The environment of an API process for `config`'s platform on `port`; `overrides` are extra variables. */
export function apiEnv(config: Config, port: number, overrides: Env = {}): Record<string, string> {
  const env: Record<string, string> = { ...workerEnv(config), HTTP_PORT: String(port) };
  for (const [name, value] of Object.entries(overrides)) if (value !== undefined) env[name] = value;
  return env;
}

export function spawnApi(config: Config, options: { port: number; env?: Env }): ApiProcess {
  const api = spawnLogged('src/main.ts', apiEnv(config, options.port, options.env), '"API listening"', 'API');
  return { ...api, port: options.port };
}

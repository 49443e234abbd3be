/**
 * What every `campaignctl` command is made of: its description and options, the I/O it prints through, and
 * the helpers that read options. A command throws `UsageError` for bad input (exit 2 with its usage line) and
 * `CliFailure` after it printed a failure itself (exit 1); anything else is described by `failures.ts`.
 */
import { readFileSync } from 'node:fs';
import type { ParseArgsConfig } from 'node:util';
import type { Config } from '../config.ts';
import type { Container } from '../container.ts';

export type Options = Record<string, string | boolean | undefined>;

export interface Command {
  summary: string;
  usage: string;
  options: NonNullable<ParseArgsConfig['options']>;
  /** Options that must be given: checked before anything is loaded or connected, so a usage error is instant. */
  required?: string[];
  run(io: CliIo, options: Options): Promise<void>;
}

export interface CliIo {
  config: Config;
  json: boolean;
  out(line: string): void;
  result(value: unknown, human: string): void;
  container(): Promise<Container>;
}

export class UsageError extends Error {}
/** The command already printed its failure (e.g. a tool error result); exit 1 without more output. */
export class CliFailure extends Error {}

export function required(options: Options, name: string): string {
  const value = options[name];
  if (typeof value !== 'string' || value.trim() === '') throw new UsageError(`--${name} is required`);
  return value.trim();
}

export function integer(options: Options, name: string, fallback?: number): number {
  const value = options[name];
  if (value === undefined && fallback !== undefined) return fallback;
  if (typeof value !== 'string' || !/^-?\d+$/.test(value.trim()))
    throw new UsageError(`--${name} must be a whole number`);
  return Number(value);
}

export function readPassword(options: Options): string | undefined {
  if (options['password-stdin']) return readFileSync(0, 'utf8').replace(/\r?\n$/, '');
  return typeof options.password === 'string' ? options.password : undefined;
}

/** Prints a list one line per item for people (or `empty` when there is none), the items themselves as JSON. */
export function listResult<T>(io: CliIo, items: T[], line: (item: T) => string, empty: string): void {
  io.result(items, items.length ? items.map(line).join('\n') : empty);
}

export const str = { type: 'string' } as const;
export const flag = { type: 'boolean' } as const;

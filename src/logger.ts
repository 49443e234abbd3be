/**
 * Structured logs (pino). Credentials never reach a log line: request headers that carry them and any field
 * named like a secret are redacted at the logger, so a careless `log.info({ req })` cannot leak one.
 */
import { pino, type Logger } from 'pino';

const REDACT = [
  'req.headers.authorization',
  'req.headers["x-api-key"]',
  'req.headers.cookie',
  'res.headers["set-cookie"]',
  '*.password',
  '*.passwordHash',
  '*.secret',
  '*.apiKey',
  '*.token',
  '*.accessToken',
  '*.refreshToken',
  'password',
  'secret',
  'token',
];

export function createLogger(options: { level: string; name: string }): Logger {
  return pino({
    name: options.name,
    level: options.level,
    redact: { paths: REDACT, censor: '[redacted]' },
    base: { service: options.name },
    timestamp: pino.stdTimeFunctions.isoTime,
  });
}

export type { Logger };

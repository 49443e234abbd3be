import type { MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';

/** What activity factories receive from the worker's composition root. */
export interface ActivityDeps {
  orm: MikroORM;
  log: Logger;
}

/** Committed migrations, in order. `npm run db:migration:create` writes a new file and adds it here. */
import { Migration20261122040951_foundation } from './Migration20261122040951_foundation.ts';
export const MIGRATIONS = [Migration20261122040951_foundation];

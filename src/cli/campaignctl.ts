/** Entry point of the operator CLI (`campaignctl`, `npm run cli --`). */
import { processEnv } from '../config.ts';
import { runCli } from './main.ts';

// Exit explicitly: a finished command must not linger on a handle someone else left open (a browser's
// keep-alive connection, a pool's idle timer).
process.exit(await runCli(process.argv.slice(2), processEnv()));

/** Entry point of the operator CLI (`campaignctl`, `npm run cli --`). */
import { processEnv } from '../config.ts';
import { runCli } from './main.ts';

// Exit explicitly: a finished command must not linger on a handle someone else left open (a browser's
// keep-alive connection, a pool's idle timer).
process.exit(
  await runCli(process.argv.slice(2), processEnv()).catch((error: unknown) => {
    // runCli reports every failure itself; this is the last guard that keeps a stack trace off the screen.
    process.stderr.write(`Unexpected error: ${String((error as Error)?.message ?? error).split('\n')[0]}\n`);
    return 70;
  }),
);

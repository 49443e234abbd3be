/** Entry point of the operator CLI (`campaignctl`, `npm run cli --`). */
import { processEnv } from '../config.ts';
import { runCli } from './main.ts';

process.exitCode = await runCli(process.argv.slice(2), processEnv());

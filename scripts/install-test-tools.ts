/**
 * `npm run test-tools:install`: install the heavy test-only tools (`test-tools/atproto`: a real AT Protocol
 * network for the Bluesky tests) into `TOOLS_DIR`, unless the copy for the current lock and Node is there.
 * `.ci/run` calls it before `npm test`; the jest global set-up calls the same function, so running the tests on
 * a fresh checkout works too.
 */
import { loadConfigOrExit } from '../src/config.ts';
import { ensureAtprotoTestTools } from '../test/support/test-tools.ts';

const config = loadConfigOrExit();
const started = Date.now();
const nodeModules = await ensureAtprotoTestTools({
  toolsDir: config.temporal.toolsDir,
  onLog: (line) => console.log(line),
});
console.log(`${nodeModules} ready (${Date.now() - started} ms)`);

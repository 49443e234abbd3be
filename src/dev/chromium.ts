/**
 * Debian's Chromium for the browser tests (playwright-core drives it; nothing downloads a browser). On a fresh
 * machine where we are root and apt-get exists, it is installed; otherwise a clear message says how.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import os from 'node:os';
import { processEnv } from '../config.ts';

export const CHROMIUM_PATH = '/usr/bin/chromium';

export function ensureChromium(log: (line: string) => void = () => undefined): string {
  if (existsSync(CHROMIUM_PATH)) return CHROMIUM_PATH;
  if (os.userInfo().uid === 0 && existsSync('/usr/bin/apt-get')) {
    log('installing Chromium from Debian (apt-get install chromium)…');
    const env = { ...processEnv(), DEBIAN_FRONTEND: 'noninteractive' };
    try {
      execFileSync('apt-get', ['install', '-y', '--no-install-recommends', 'chromium'], { stdio: 'inherit', env });
    } catch {
      execFileSync('apt-get', ['update'], { stdio: 'inherit', env });
      execFileSync('apt-get', ['install', '-y', '--no-install-recommends', 'chromium'], { stdio: 'inherit', env });
    }
    if (existsSync(CHROMIUM_PATH)) return CHROMIUM_PATH;
  }
  throw new Error(
    `Chromium is required for the browser tests at ${CHROMIUM_PATH}: install it with \`sudo apt-get install chromium\``,
  );
}

/** The platform's version, from package.json (read once at startup). */
import { readFileSync } from 'node:fs';

const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string };

export const PLATFORM_VERSION: string = pkg.version;
export const PLATFORM_NAME = 'campaign-platform';

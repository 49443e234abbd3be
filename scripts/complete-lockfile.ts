/**
 * Adds lock entries for optional platform packages the registry here does not serve.
 *
 * This machine's npm registry serves only the binaries for its own platform (linux-x64); npm then leaves the
 * other platforms' optional packages (swc, esbuild, … for darwin/win32/arm) out of package-lock.json, and
 * `npm ci` refuses the lock as "out of sync". Recording them as optional entries (no tarball) makes the lock
 * complete again; on install they are skipped as any unavailable optional dependency is. Run after
 * `npm install <package>`: `node scripts/complete-lockfile.ts`.
 */
import fs from 'node:fs';

interface LockEntry {
  version?: string;
  dev?: boolean;
  optional?: boolean;
  optionalDependencies?: Record<string, string>;
}

const file = 'package-lock.json';
const lock = JSON.parse(fs.readFileSync(file, 'utf8')) as { packages: Record<string, LockEntry> };
let added = 0;
for (const [path, entry] of Object.entries(lock.packages)) {
  for (const [name, version] of Object.entries(entry.optionalDependencies ?? {})) {
    const nested = `${path ? `${path}/` : ''}node_modules/${name}`;
    const hoisted = `node_modules/${name}`;
    if (lock.packages[nested] || lock.packages[hoisted]) continue;
    lock.packages[hoisted] = { version, ...(entry.dev ? { dev: true } : {}), optional: true };
    added += 1;
  }
}
fs.writeFileSync(file, `${JSON.stringify(lock, null, 2)}\n`);
console.log(`package-lock.json: recorded ${added} optional platform package(s) missing from the registry`);

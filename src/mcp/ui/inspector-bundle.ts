/**
 * The build step of the campaign inspector widget: inspector-page.ts (typed browser code) and the ext-apps
 * runtime it imports are bundled by webpack into one classic script with no imports or exports, which
 * campaign-inspector.ts inlines into the page. webpack and swc-loader are the bundler and TypeScript loader the
 * Temporal worker already uses for workflow code, so the widget is built the same way and needs no other tool.
 *
 * Bundles are cached on disk under a key of everything that goes into them (the widget's source and the
 * versions of ext-apps, webpack and swc), so a process that starts with the bundle already built — any process
 * after the first, and every production process (`npm run build` writes it into dist/) — only reads a file.
 * A process that finds none builds it once, synchronously, in a child process (a few seconds).
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Stats } from 'webpack';

const require = createRequire(import.meta.url);
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
export const WIDGET_SOURCE = fileURLToPath(new URL('./inspector-page.ts', import.meta.url));
const BUILD_SCRIPT = path.join(ROOT, 'scripts', 'build-inspector.ts');
/** Where `npm run build` puts the bundle, and where a process that builds one first tries to keep it. */
export const BUNDLE_DIR = path.join(ROOT, 'dist');

/** The installed version of `pkg`, from the package.json above its entry point (some packages export none). */
function versionOf(pkg: string): string {
  for (let dir = path.dirname(require.resolve(pkg)); dir !== path.dirname(dir); dir = path.dirname(dir)) {
    const manifest = path.join(dir, 'package.json');
    if (!existsSync(manifest)) continue;
    const { name, version } = JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string; version: string };
    if (name === pkg) return version;
  }
  throw new Error(`Cannot find the installed version of ${pkg}`);
}

/** The cache key: the widget's source and every tool and library version that shapes the bundle. */
export function bundleKey(): string {
  return bundleKeyOf(readFileSync(WIDGET_SOURCE));
}

/** The key of a bundle made from `source` with the installed tool versions. */
export function bundleKeyOf(source: string | Buffer): string {
  const hash = createHash('sha256').update(source);
  for (const pkg of ['@modelcontextprotocol/ext-apps', 'webpack', 'swc-loader', '@swc/core']) {
    hash.update(`\0${pkg}@${versionOf(pkg)}`);
  }
  return hash.digest('hex').slice(0, 16);
}

export const bundleFileName = (key: string) => `inspector-widget-${key}.js`;

/** Bundles the widget (async, in this process): what `scripts/build-inspector.ts` runs. */
export async function bundleInspectorWidget(): Promise<string> {
  const { default: webpack } = await import('webpack');
  const outDir = await import('node:fs/promises').then((fs) => fs.mkdtemp(path.join(os.tmpdir(), 'inspector-')));
  const compiler = webpack({
    mode: 'production',
    target: ['web', 'es2022'],
    entry: WIDGET_SOURCE,
    devtool: false,
    performance: { hints: false },
    // One classic script: everything in a function scope, nothing imported or exported at run time.
    output: { path: outDir, filename: 'widget.js', iife: true, module: false, chunkFormat: false },
    // Not minified: the ext-apps code arrives minified already (licence comments kept), and the widget stays
    // readable in a host's developer tools.
    optimization: { splitChunks: false, runtimeChunk: false, minimize: false },
    resolve: { extensions: ['.ts', '.js'], extensionAlias: { '.js': ['.ts', '.js'] } },
    // A page in a sandboxed iframe can load nothing: any lazily loaded part goes into the one script too.
    plugins: [new webpack.optimize.LimitChunkCountPlugin({ maxChunks: 1 })],
    module: {
      rules: [
        {
          test: /\.ts$/,
          loader: require.resolve('swc-loader'),
          options: { jsc: { parser: { syntax: 'typescript' }, target: 'es2022' } },
        },
      ],
    },
  });
  const stats = await new Promise<Stats>((resolve, reject) =>
    compiler.run((error, result) => (error ? reject(error) : result ? resolve(result) : reject(new Error('no stats')))),
  );
  await new Promise<void>((resolve) => compiler.close(() => resolve()));
  if (stats.hasErrors()) {
    throw new Error(`Cannot bundle the campaign inspector widget:\n${stats.toString({ all: false, errors: true })}`);
  }
  const code = readFileSync(path.join(outDir, 'widget.js'), 'utf8');
  await import('node:fs/promises').then((fs) => fs.rm(outDir, { recursive: true, force: true }));
  return code;
}

/**
 * Writes `code` as `file` atomically (readers in other processes see the whole bundle or none), and removes the
 * bundles of earlier sources beside it, so dist/ does not fill up as the widget changes.
 */
export function writeBundle(file: string, code: string): void {
  const dir = path.dirname(file);
  mkdirSync(dir, { recursive: true });
  const partial = `${file}.${process.pid}.partial`;
  writeFileSync(partial, code);
  renameSync(partial, file);
  for (const name of readdirSync(dir)) {
    if (/^inspector-widget-[0-9a-f]{16}\.js$/.test(name) && name !== path.basename(file)) {
      rmSync(path.join(dir, name), { force: true });
    }
  }
}

/**
 * The widget bundle for the current sources: read from dist/ (or the temp directory a read-only install
 * falls back to), else built now by `scripts/build-inspector.ts` in a child process and kept there.
 */
export function loadInspectorWidget(): string {
  const name = bundleFileName(bundleKey());
  const candidates = [path.join(BUNDLE_DIR, name), path.join(os.tmpdir(), 'campaign-platform', name)];
  for (const file of candidates) {
    if (existsSync(file)) return readFileSync(file, 'utf8');
  }
  for (const file of candidates) {
    try {
      execFileSync(process.execPath, [BUILD_SCRIPT, file], { stdio: ['ignore', 'ignore', 'pipe'] });
      return readFileSync(file, 'utf8');
    } catch (error) {
      // A read-only install directory: try the next place; anything else is a real build failure.
      const stderr = (error as { stderr?: Buffer }).stderr?.toString() ?? '';
      if (!/EACCES|EROFS|EPERM/.test(stderr)) {
        throw new Error(`Cannot build the campaign inspector widget: ${stderr.trim() || String(error)}`, {
          cause: error,
        });
      }
    }
  }
  throw new Error('Cannot build the campaign inspector widget: no writable place for the bundle');
}

/**
 * `npm run build` (and on demand, see src/mcp/ui/inspector-bundle.ts): bundles the campaign inspector widget
 * into `dist/inspector-widget-<key>.js`, or into the path given as the first argument.
 */
import path from 'node:path';
import {
  BUNDLE_DIR,
  bundleFileName,
  bundleInspectorWidget,
  bundleKey,
  writeBundle,
} from '../src/mcp/ui/inspector-bundle.ts';

const out = path.resolve(process.argv[2] ?? path.join(BUNDLE_DIR, bundleFileName(bundleKey())));
const code = await bundleInspectorWidget();
writeBundle(out, code);
console.log(`Wrote ${out} (${(code.length / 1024).toFixed(0)} KiB)`);

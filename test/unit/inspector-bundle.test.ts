/**
 * The inspector widget's build step: one classic script with nothing imported or exported at run time (a
 * sandboxed iframe can load nothing), cached under a key of its sources, inlined safely into the page.
 */
import vm from 'node:vm';
import { inlineScriptText, inspectorHtml } from '../../src/mcp/ui/campaign-inspector.ts';
import { readFileSync } from 'node:fs';
import { bundleKey, bundleKeyOf, loadInspectorWidget, WIDGET_SOURCE } from '../../src/mcp/ui/inspector-bundle.ts';

describe('the inspector widget bundle', () => {
  const code = loadInspectorWidget();

  it('is one classic script: it parses as a script, so it has no import or export statements', () => {
    expect(() => new vm.Script(code, { filename: 'inspector-widget.js' })).not.toThrow();
    expect(code).not.toMatch(/\bimport\s*\(/);
    // The ext-apps runtime and the widget are both in it.
    expect(code).toContain('campaign-inspector');
    expect(code).toContain('ui/initialize');
  });

  it('is cached under a key of its sources: the same sources give the same key and the same bundle', () => {
    expect(bundleKey()).toMatch(/^[0-9a-f]{16}$/);
    expect(bundleKey()).toBe(bundleKeyOf(readFileSync(WIDGET_SOURCE)));
    // Any edit to the widget is a new key, so a stale bundle is never read back.
    expect(bundleKeyOf(`${readFileSync(WIDGET_SOURCE, 'utf8')}\n`)).not.toBe(bundleKey());
    expect(loadInspectorWidget()).toBe(code);
  });

  it('is inlined into the page as a classic script, with `</script` escaped and `<!--` refused', () => {
    const html = inspectorHtml();
    expect(html).toContain('<script>\n');
    expect(html).not.toContain('type="module"');
    expect(html.match(/<\/script>/g)).toHaveLength(1);
    expect(inlineScriptText('const s = "</script>";', 'x')).toBe('const s = "<\\/script>";');
    expect(() => inlineScriptText('const s = "<!--";', 'x')).toThrow(/contains "<!--"/);
  });
});

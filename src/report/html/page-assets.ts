import { createHash } from 'node:crypto';

/** The page's one stylesheet; AA contrast on white for every text color it sets. */
export const PAGE_STYLE = `
:root{color-scheme:light;--fg:#1b1b1b;--muted:#4a4a4a;--line:#c8c8c8;--bg2:#f4f4f4}
*{box-sizing:border-box}
[hidden]{display:none!important}
body{margin:0 auto;max-width:78rem;padding:1rem 1.25rem 3rem;font:15px/1.5 system-ui,-apple-system,"Segoe UI",sans-serif;color:var(--fg);background:#fff}
h1{font-size:1.5rem;margin:.5rem 0}h2{font-size:1.25rem;margin:1.75rem 0 .5rem;border-bottom:1px solid var(--line)}
h3{font-size:1rem;display:inline;margin:0}h4{font-size:.95rem;margin:1rem 0 .25rem}
code,pre{font:13px/1.45 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}
pre{background:var(--bg2);padding:.5rem .75rem;overflow:auto;max-height:40rem;margin:.25rem 0}
.doc-text{white-space:pre-wrap;overflow-wrap:anywhere}
dl.facts{display:grid;grid-template-columns:max-content 1fr;gap:.15rem 1rem;margin:.5rem 0}
dl.facts dt{color:var(--muted);font-weight:600}dl.facts dd{margin:0;overflow-wrap:anywhere}
table{border-collapse:collapse;margin:.25rem 0;font-size:.9rem}
th,td{border:1px solid var(--line);padding:.2rem .5rem;text-align:left;vertical-align:top}
td code{overflow-wrap:anywhere}
th{background:var(--bg2);white-space:nowrap}
caption{text-align:left;padding:.1rem 0}
.badge{display:inline-block;white-space:nowrap;padding:0 .45rem;border-radius:.6rem;font-size:.8rem;font-weight:600;border:1px solid currentColor}
.s-completed,.s-written,.s-done,.s-ok{color:#0b5d1e;background:#e6f4ea}
.s-failed,.s-rejected,.s-blocked,.s-bad{color:#a4000f;background:#fde7e9}
.s-skipped{color:#444;background:#eee}
.s-pending,.s-fix_needed{color:#6b4e00;background:#fff4ce}
.s-running{color:#004e8c;background:#e5f1fb}
details.step{border:1px solid var(--line);border-radius:.3rem;margin:.4rem 0;padding:.3rem .6rem}
details.step>summary{cursor:pointer;padding:.15rem 0}
details.step[open]>summary{border-bottom:1px solid var(--line);margin-bottom:.4rem}
.meta{color:var(--muted);font-size:.85rem}
.controls{display:flex;flex-wrap:wrap;gap:.5rem 1rem;align-items:center;margin:.5rem 0}
.controls button,.controls select{font:inherit;padding:.1rem .5rem}
.doc{border-left:3px solid var(--line);padding:0 .75rem;overflow-wrap:anywhere}
.md-image{color:var(--muted)}
.diff .a{color:#0b5d1e;background:#e6f4ea;display:block}
.diff .d{color:#a4000f;background:#fde7e9;display:block}
.diff .h{color:#004e8c;display:block}.diff .m{color:var(--muted);display:block}
.diff .c{display:block}
.note{background:#fff4ce;color:#3d2e00;padding:.4rem .75rem;border-radius:.3rem}
svg.timeline{width:100%;height:auto;border:1px solid var(--line);background:#fff}
svg.timeline text{font:11px system-ui,sans-serif;fill:#1b1b1b}
svg.timeline .axis{stroke:#888}
svg .s-completed{fill:#2e7d32}svg .s-failed{fill:#c62828}svg .s-running{fill:#1565c0}
svg .s-skipped,svg .s-pending{fill:#9e9e9e}
svg text.on-bar{fill:#fff}
footer{margin-top:2rem;border-top:1px solid var(--line)}
`;

/** The page's one script: the status filter and expand/collapse all; without it every section is still there. */
export const PAGE_SCRIPT = `
(function () {
  var controls = document.getElementById('step-controls');
  if (controls) controls.hidden = false;
  var filter = document.getElementById('step-filter');
  var count = document.getElementById('step-count');
  var steps = Array.prototype.slice.call(document.querySelectorAll('details.step'));
  function apply() {
    if (!filter) return;
    var value = filter.value;
    var shown = 0;
    steps.forEach(function (step) {
      var match = value === 'all' || (value === 'rejected' ? step.getAttribute('data-rejected') === 'true' : step.getAttribute('data-status') === value);
      step.hidden = !match;
      if (match) shown++;
    });
    if (count) count.textContent = shown + ' of ' + steps.length + ' shown';
  }
  function openAll(open) {
    Array.prototype.forEach.call(document.querySelectorAll('main details'), function (details) { details.open = open; });
  }
  if (filter) filter.addEventListener('change', apply);
  var expand = document.getElementById('expand-all');
  var collapse = document.getElementById('collapse-all');
  if (expand) expand.addEventListener('click', function () { openAll(true); });
  if (collapse) collapse.addEventListener('click', function () { openAll(false); });
  apply();
})();
`;

/** The `sha256-…` CSP source of an inline style or script, exactly as the browser hashes its text. */
export function cspHash(text: string): string {
  return `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;
}

/** The page's Content-Security-Policy: nothing loads, only the page's own style and script run. */
export const PAGE_CSP = [
  "default-src 'none'",
  'img-src data:',
  `style-src ${cspHash(PAGE_STYLE)}`,
  `script-src ${cspHash(PAGE_SCRIPT)}`,
  "base-uri 'none'",
  "form-action 'none'",
].join('; ');

"""The report's stylesheet and script, inlined in the page (no network, works from file://)."""

CSS = """
:root { --fg:#1f2328; --muted:#59636e; --bg:#fff; --panel:#f6f8fa; --line:#d1d9e0;
  --migrated:#1a7f37; --kept-on-compat-v1:#bf8700; --cannot-run:#cf222e; --unchanged:#8c959f;
  --skipped:#d0d7de; --failed:#6e2c9e; --add-bg:#dafbe1; --del-bg:#ffebe9; --hunk:#ddf4ff;
  --link:#0969da; }
@media (prefers-color-scheme: dark) {
  :root { --fg:#e6edf3; --muted:#9198a1; --bg:#0d1117; --panel:#151b23; --line:#3d444d;
    --unchanged:#656c76; --skipped:#3d444d; --add-bg:#12361f; --del-bg:#4a1619;
    --hunk:#0c2d6b; --link:#4493f8; }
}
* { box-sizing: border-box; }
body { margin:0; font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;
  color:var(--fg); background:var(--bg); }
header.top { padding:16px 24px 8px; border-bottom:1px solid var(--line); }
header.top h1 { margin:0 0 4px; font-size:22px; }
.meta { color:var(--muted); font-size:12px; }
nav { position:sticky; top:0; z-index:2; background:var(--bg); padding:6px 24px;
  border-bottom:1px solid var(--line); font-size:13px; }
nav a { margin-right:14px; }
main { padding:0 24px 48px; max-width:1280px; }
h2 { margin:28px 0 10px; font-size:18px; border-bottom:1px solid var(--line); padding-bottom:4px; }
a { color:var(--link); text-decoration:none; }
a:hover { text-decoration:underline; }
code, pre, .mono { font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;
  font-size:12px; }
.cards { display:flex; flex-wrap:wrap; gap:10px; margin:8px 0 12px; }
.card { border:1px solid var(--line); border-radius:6px; padding:8px 14px; min-width:130px;
  background:var(--panel); }
.card b { display:block; font-size:24px; }
.card span { color:var(--muted); font-size:12px; }
.card.c-migrated b { color:var(--migrated); }
.card.c-kept-on-compat-v1 b { color:var(--kept-on-compat-v1); }
.card.c-cannot-run b { color:var(--cannot-run); } .card.c-failed b { color:var(--failed); }
.bar { display:flex; height:14px; border-radius:3px; overflow:hidden; background:var(--panel);
  min-width:120px; }
.bar.big { height:24px; margin:6px 0; }
.bar i { display:block; height:100%; }
.s-migrated { background:var(--migrated); }
.s-kept-on-compat-v1 { background:var(--kept-on-compat-v1); }
.s-cannot-run { background:var(--cannot-run); } .s-unchanged { background:var(--unchanged); }
.s-skipped { background:var(--skipped); } .s-failed { background:var(--failed); }
.legend { display:flex; flex-wrap:wrap; gap:14px; font-size:12px; color:var(--muted); }
.legend i { display:inline-block; width:10px; height:10px; border-radius:2px; margin-right:4px; }
table.grid { border-collapse:collapse; width:100%; margin:6px 0; }
table.grid th, table.grid td { text-align:left; padding:4px 8px;
  border-bottom:1px solid var(--line);
  vertical-align:top; }
table.grid th { background:var(--panel); font-weight:600; }
table.grid .n { text-align:right; font-variant-numeric:tabular-nums; }
.up { color:var(--migrated); } .down { color:var(--cannot-run); }
.badge { display:inline-block; padding:0 6px; border-radius:10px; font-size:11px; color:#fff;
  white-space:nowrap; }
.badge.s-skipped, .badge.s-unchanged { color:var(--fg); }
details > summary { cursor:pointer; }
.tree details { margin-left:14px; }
.tree summary, .tree .leaf { display:grid; grid-template-columns:minmax(240px,1fr) 260px 160px;
  gap:10px; align-items:center; padding:2px 0; }
.tree .leaf { margin-left:28px; grid-template-columns:minmax(226px,1fr) 260px 160px; }
.tree .counts { color:var(--muted); font-size:12px; }
.tree .badge { justify-self:start; }
.file { border:1px solid var(--line); border-radius:6px; margin:6px 0; content-visibility:auto;
  contain-intrinsic-size:auto 34px; }
.file > details > summary { padding:6px 10px; background:var(--panel); display:flex; gap:10px;
  align-items:center; }
.file > details > summary .path { flex:1; font-family:ui-monospace,Menlo,Consolas,monospace;
  font-size:12px; overflow-wrap:anywhere; }
.file .body { padding:6px 12px 10px; }
.file:target { outline:2px solid var(--link); }
ul.findings { margin:4px 0; padding-left:18px; }
ul.findings li { margin:2px 0; }
.diff { border:1px solid var(--line); border-radius:4px; overflow:auto; margin:6px 0; }
.diff div { white-space:pre; font-family:ui-monospace,Menlo,Consolas,monospace; font-size:12px;
  line-height:1.4; padding-right:10px; }
.diff span.o, .diff span.n { display:inline-block; width:4.2em; padding-right:6px; text-align:right;
  color:var(--muted); user-select:none; }
.diff .add { background:var(--add-bg); } .diff .del { background:var(--del-bg); }
.diff .hunk { background:var(--hunk); color:var(--muted); }
.diff .head { color:var(--muted); font-weight:600; }
.explain h4 { margin:10px 0 2px; font-size:13px; }
.explain pre { background:var(--panel); padding:8px; border-radius:4px; overflow:auto; }
.filters { display:flex; flex-wrap:wrap; gap:12px; align-items:center; margin:6px 0 10px; }
.filters input[type=search] { padding:4px 8px; min-width:260px; border:1px solid var(--line);
  border-radius:4px; background:var(--bg); color:var(--fg); }
.muted { color:var(--muted); }
.hidden { display:none !important; }
"""

JS = """
(function () {
  'use strict';
  function openTarget() {
    var id = decodeURIComponent(location.hash.slice(1));
    var el = id && document.getElementById(id);
    if (!el) return;
    for (var node = el; node; node = node.parentElement) {
      if (node.tagName === 'DETAILS') node.open = true;
    }
    var own = el.querySelector(':scope > details');
    if (own) own.open = true;
    el.scrollIntoView();
  }
  window.addEventListener('hashchange', openTarget);
  document.addEventListener('DOMContentLoaded', function () {
    openTarget();
    var files = Array.prototype.slice.call(document.querySelectorAll('section.file'));
    var boxes = Array.prototype.slice.call(document.querySelectorAll('input[data-filter]'));
    var search = document.getElementById('file-search');
    var shown = document.getElementById('files-shown');
    function apply() {
      var wanted = {};
      boxes.forEach(function (b) { wanted[b.getAttribute('data-filter')] = b.checked; });
      var text = (search && search.value || '').toLowerCase();
      var withFindings = document.getElementById('only-findings');
      var onlyFindings = withFindings && withFindings.checked;
      var count = 0;
      files.forEach(function (f) {
        var ok = wanted[f.getAttribute('data-category')] !== false &&
          (!text || f.getAttribute('data-path').toLowerCase().indexOf(text) >= 0) &&
          (!onlyFindings || f.getAttribute('data-findings') !== '0');
        f.classList.toggle('hidden', !ok);
        if (ok) count++;
      });
      if (shown) shown.textContent = String(count);
    }
    boxes.forEach(function (b) { b.addEventListener('change', apply); });
    var only = document.getElementById('only-findings');
    if (only) only.addEventListener('change', apply);
    if (search) search.addEventListener('input', apply);
    document.querySelectorAll('button[data-expand]').forEach(function (button) {
      button.addEventListener('click', function () {
        var open = button.getAttribute('data-expand') === 'open';
        document.querySelectorAll(button.getAttribute('data-scope') + ' details').forEach(
          function (d) { if (!d.closest('.hidden')) d.open = open; });
      });
    });
  });
})();
"""

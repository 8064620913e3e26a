/**
 * The report's inline style sheet: light and dark palettes chosen by `prefers-color-scheme`, text
 * colours at least 4.5:1 against their backgrounds (body text above 12:1, muted text above 6:1),
 * one accent per kind of change (the chip's border and icon; its label keeps the body colour).
 */
export const REPORT_CSS = `
:root{color-scheme:light dark;--bg:#ffffff;--fg:#1b1b1b;--muted:#555555;--line:#d0d0d0;--panel:#f5f5f5;--link:#0b4fb3;
--kept:#2e7d32;--changed:#8d6e00;--back-reference:#1565c0;--placeholder:#6a1b9a;--summary:#ad1457;--pinned:#00695c;--slimmed:#4e5b00;--instruction:#5d4037;--dropped:#b71c1c;
--before:#1b1b1b;--after:#ad1457;--window:#b71c1c;--trigger:#8d6e00}
@media (prefers-color-scheme:dark){:root{--bg:#161616;--fg:#ececec;--muted:#b0b0b0;--line:#444444;--panel:#222222;--link:#8ab4f8;
--kept:#81c784;--changed:#ffd54f;--back-reference:#90caf9;--placeholder:#ce93d8;--summary:#f48fb1;--pinned:#80cbc4;--slimmed:#d4e157;--instruction:#bcaaa4;--dropped:#ef9a9a;
--before:#ececec;--after:#f48fb1;--window:#ef9a9a;--trigger:#ffd54f}}
*{box-sizing:border-box}
body{margin:0;background:var(--bg);color:var(--fg);font:15px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif}
header,main{max-width:1400px;margin:0 auto;padding:0 16px}
h1{font-size:1.4rem;margin:16px 0 8px;overflow-wrap:anywhere}
h2{font-size:1.2rem;border-bottom:1px solid var(--line);padding-bottom:4px;margin-top:28px}
h3{font-size:1rem;margin:16px 0 6px}
h4{font-size:.95rem;margin:10px 0 4px}
a{color:var(--link)}
nav ul{list-style:none;display:flex;flex-wrap:wrap;gap:12px;padding:0;margin:0 0 8px}
code,pre{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:.85rem}
pre{white-space:pre-wrap;overflow-wrap:anywhere;margin:4px 0;background:var(--panel);padding:6px 8px;border-radius:4px}
details>summary{cursor:pointer;color:var(--link)}
.muted,.cut,.why,.same{color:var(--muted)}
.why,.same,.cut{margin:2px 0;font-size:.9rem}
dl.facts{display:grid;grid-template-columns:max-content 1fr;gap:2px 16px;margin:8px 0}
dl.facts>div{display:contents}
dl.facts dt{font-weight:600}
dl.facts dd{margin:0}
.on{color:var(--kept)}
.off{color:var(--muted)}
.columns{display:grid;grid-template-columns:1fr 1fr;gap:16px}
@media (max-width:900px){.columns{grid-template-columns:1fr}}
.column{min-width:0}
ol.rows{list-style:none;padding:0;margin:0}
.row{border:1px solid var(--line);border-radius:6px;padding:6px 8px;margin:0 0 6px}
.row-head{display:flex;flex-wrap:wrap;gap:6px;align-items:center;font-size:.9rem}
.pos,.tokens{color:var(--muted)}
.role{font-weight:600}
.chip{display:inline-block;border:1px solid var(--line);border-left:4px solid var(--muted);border-radius:4px;padding:0 6px;font-size:.85rem;color:var(--fg);background:var(--bg)}
.chip>span{font-weight:700}
${['kept', 'changed', 'back-reference', 'placeholder', 'summary', 'pinned', 'slimmed', 'instruction', 'dropped']
  .map((k) => `.chip--${k}{border-left-color:var(--${k})}.chip--${k}>span{color:var(--${k})}`)
  .join('\n')}
dl.legend{margin:8px 0}
dl.legend>div{display:flex;gap:12px;align-items:baseline;margin:4px 0}
dl.legend dt{min-width:11rem}
dl.legend dd{margin:0}
.legend-off{color:var(--muted)}
.boundary{border-top:2px dashed var(--summary);padding:0 4px;font-size:.85rem}
.pass{border:1px solid var(--line);border-radius:6px;padding:4px 12px;margin:8px 0}
table{border-collapse:collapse;width:100%;font-size:.9rem}
th,td{border:1px solid var(--line);padding:3px 6px;text-align:left;vertical-align:top}
td code{overflow-wrap:anywhere}
svg.timeline{width:100%;max-width:900px;height:auto;display:block}
svg .axis{stroke:var(--muted);stroke-width:1}
svg .before{fill:none;stroke:var(--before);stroke-width:2}
svg .after{fill:none;stroke:var(--after);stroke-width:2;stroke-dasharray:6 3}
svg .window{stroke:var(--window);stroke-width:1;stroke-dasharray:2 3}
svg .trigger{stroke:var(--trigger);stroke-width:1;stroke-dasharray:8 4}
svg .pass{stroke:var(--muted);stroke-width:1;stroke-dasharray:1 3}
svg .lbl{fill:var(--fg);font-size:11px}
`

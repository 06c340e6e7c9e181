/**
 * The shadow root's style sheet. `all: initial` on the inner box stops the page's inherited styles
 * (font, colour, letter spacing) from leaking in; the page themes the widget only through these
 * custom properties, which do inherit:
 *   --mango-font, --mango-fg, --mango-bg, --mango-muted, --mango-border, --mango-accent,
 *   --mango-bruise, --mango-healthy, --mango-radius, --mango-focus
 */
export const WIDGET_CSS = `
:host {
  display: block;
  --_bg: var(--mango-bg, #ffffff);
  --_fg: var(--mango-fg, #1f2a1c);
  --_muted: var(--mango-muted, #5b6657);
  --_border: var(--mango-border, #d8ddd2);
  --_accent: var(--mango-accent, #e8a317);
  --_bruise: var(--mango-bruise, #8a3b12);
  --_healthy: var(--mango-healthy, #3f7d20);
  --_radius: var(--mango-radius, 12px);
  --_focus: var(--mango-focus, #1d4ed8);
}
:host([hidden]) { display: none; }
* { box-sizing: border-box; }
.root {
  /* The page's styles reach the host element (and win over :host), so the inherited text styles
     are reset here, inside the shadow root, where the page cannot reach. */
  all: initial;
  display: block;
  font-family: var(--mango-font, system-ui, -apple-system, 'Segoe UI', Roboto, 'Noto Sans Thai', sans-serif);
  font-size: 15px;
  line-height: 1.45;
  color: var(--_fg);
  text-align: start;
  box-sizing: border-box;
  background: var(--_bg);
  border: 1px solid var(--_border);
  border-radius: var(--_radius);
  padding: 16px;
}
.title { margin: 0 0 12px; font-size: 1.05em; font-weight: 600; }
.dropzone {
  display: flex;
  flex-direction: column;
  align-items: center;
  gap: 4px;
  padding: 28px 16px;
  border: 2px dashed var(--_border);
  border-radius: var(--_radius);
  text-align: center;
  cursor: pointer;
  user-select: none;
}
.dropzone:hover, .dropzone.over { border-color: var(--_accent); background: color-mix(in srgb, var(--_accent) 8%, transparent); }
.dropzone:focus-visible { outline: 3px solid var(--_focus); outline-offset: 2px; }
.dropzone[aria-disabled='true'] { opacity: 0.6; cursor: progress; }
.prompt { font-weight: 600; }
.hint, .note { color: var(--_muted); font-size: 0.9em; }
.note { margin: 8px 0 0; }
input[type='file'] { display: none; }
.status { min-height: 1.45em; margin: 10px 0 0; color: var(--_muted); }
.status.error { color: #b42318; }
progress { width: 100%; height: 8px; margin-top: 8px; accent-color: var(--_accent); }
progress[hidden] { display: none; }
.results { list-style: none; margin: 12px 0 0; padding: 0; display: grid; gap: 16px; }
.result { border-top: 1px solid var(--_border); padding-top: 12px; }
.filename { margin: 0 0 8px; font-size: 1em; font-weight: 600; overflow-wrap: anywhere; }
.overlay { display: block; max-width: 100%; max-height: 360px; border-radius: calc(var(--_radius) / 2); }
.figures { display: flex; flex-wrap: wrap; gap: 8px 24px; margin: 10px 0 0; }
.figures div { display: flex; flex-direction: column; }
.figures dt { color: var(--_muted); font-size: 0.85em; }
.quality { margin: 10px 0 0; padding: 6px 10px; border: 1px solid #f0b45a; background: #fff7e8; border-radius: 6px; color: #5a3300; }
.quality ul { margin: 4px 0 0; padding-left: 1.2em; }
.figures dd { margin: 0; font-size: 1.3em; font-weight: 700; font-variant-numeric: tabular-nums; }
.figures .bruise dd { color: var(--_bruise); }
.figures .healthy dd { color: var(--_healthy); }
table { border-collapse: collapse; margin-top: 10px; font-size: 0.9em; font-variant-numeric: tabular-nums; }
caption { text-align: left; color: var(--_muted); padding-bottom: 4px; }
th, td { padding: 4px 10px; border-bottom: 1px solid var(--_border); text-align: right; }
th:first-child, td:first-child { text-align: left; }
`;

/**
 * The viewer's HTML: the served page (which fetches sessions) and the exported page (one session
 * embedded as JSON, self-contained, to share as a file). Both carry a per-page script nonce and a
 * Content-Security-Policy, so nothing but the viewer's own script can run in them.
 */
import { randomBytes } from "node:crypto";
import type { SessionView } from "./sessions-api.js";
import { VIEWER_SCRIPT } from "./viewer-script.js";

const STYLE = `
:root { color-scheme: light dark; --fg: #1d1d1f; --bg: #fbfbfd; --dim: #6e6e73; --card: #fff; --line: #d2d2d7;
  --accent: #0b63ce; --ok: #1a7f37; --err: #c62828; --warn: #b26a00; }
@media (prefers-color-scheme: dark) { :root { --fg: #e8e8ed; --bg: #161617; --dim: #98989d; --card: #1f1f21;
  --line: #3a3a3c; --accent: #5aa3ff; --ok: #3fb950; --err: #ff6b6b; --warn: #e3b341; } }
body { margin: 0; font: 14px/1.5 system-ui, sans-serif; color: var(--fg); background: var(--bg); }
#app { max-width: 980px; margin: 0 auto; padding: 16px; }
.bar { display: flex; gap: 12px; align-items: center; margin-bottom: 12px; }
.bar h1 { font-size: 18px; margin: 0; flex: 1; }
.button, button.more { color: var(--accent); background: none; border: 1px solid var(--line); border-radius: 6px;
  padding: 2px 8px; text-decoration: none; cursor: pointer; font: inherit; }
.search { padding: 4px 8px; border: 1px solid var(--line); border-radius: 6px; min-width: 280px; background: var(--card); color: var(--fg); }
table.sessions { width: 100%; border-collapse: collapse; }
table.sessions th, table.sessions td { text-align: left; padding: 6px; border-bottom: 1px solid var(--line); vertical-align: top; }
.dim, .meta { color: var(--dim); }
.meta { font-size: 12px; margin: 8px 0; }
.msg { background: var(--card); border: 1px solid var(--line); border-radius: 8px; padding: 8px 12px; margin: 10px 0; }
.msg.user { border-left: 4px solid var(--accent); }
.who { font-size: 12px; color: var(--dim); }
.md p { margin: 6px 0; } .md pre, pre { overflow-x: auto; background: rgba(127,127,127,.12); padding: 8px; border-radius: 6px; white-space: pre-wrap; word-break: break-word; }
details.tool { border: 1px solid var(--line); border-radius: 6px; margin: 6px 0; padding: 4px 8px; }
details.tool.failed { border-color: var(--err); }
details.tool summary { cursor: pointer; } .arg { color: var(--dim); font-family: ui-monospace, monospace; font-size: 12px; }
.status { font-size: 11px; border-radius: 4px; padding: 0 4px; margin-left: 6px; }
.status.ok { color: var(--ok); } .status.error { color: var(--err); } .status.interrupted, .status.pending { color: var(--warn); }
.diff .add { color: var(--ok); } .diff .del { color: var(--err); } .diff .ctx, .diff .gap { color: var(--dim); }
.prompt { white-space: pre-wrap; word-break: break-word; margin: 6px 0; }
.md blockquote { margin: 6px 0; padding: 0 10px; border-left: 3px solid var(--line); color: var(--dim); }
.md table.md-table { border-collapse: collapse; margin: 6px 0; }
.md table.md-table th, .md table.md-table td { border: 1px solid var(--line); padding: 3px 8px; }
.md li.task { list-style: none; } .md p.plain { white-space: pre-wrap; }
td.state.success { color: var(--ok); } td.state.error { color: var(--err); }
td.state.interrupted, td.state.running, td.state.queued, td.state.cancelled { color: var(--warn); }
details.thinking summary { color: var(--dim); cursor: pointer; font-style: italic; }
.error { color: var(--err); font-weight: 600; } td.error-cell { color: var(--err); font-size: 12px; }
.run { font-size: 12px; margin: 4px 0 16px; } .run.ok { color: var(--ok); } .run.failed { color: var(--err); }
details.boundary { border-top: 2px dashed var(--line); margin: 16px 0; padding-top: 6px; color: var(--dim); }
.subagent { border-left: 3px solid var(--line); padding-left: 10px; margin: 6px 0; }
.label { font-size: 12px; color: var(--dim); }
.timeline svg.chart { width: 100%; height: 70px; } .timeline rect { fill: var(--accent); }
`;

/** A page and the nonce its script runs under. */
export interface Page {
  html: string;
  nonce: string;
}

function page(title: string, nonce: string, extraHead: string, body: string, source = "local"): string {
  const csp = `default-src 'none'; script-src 'nonce-${nonce}'; style-src 'unsafe-inline'; img-src data:; connect-src 'self'; base-uri 'none'; form-action 'none'`;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${escapeHtml(title)}</title><style>${STYLE}</style>${extraHead}</head>
<body><div id="app" data-source="${escapeHtml(source)}"></div>${body}<script nonce="${nonce}">${VIEWER_SCRIPT}</script></body></html>`;
}

/** The served viewer, of local session files or of a database's durable sessions. */
export function viewerPage(source: "local" | "durable" = "local"): Page {
  const nonce = randomBytes(16).toString("base64");
  const title = source === "durable" ? "Goat durable sessions" : "Goat sessions";
  return { html: page(title, nonce, "", "", source), nonce };
}

/** One session as a self-contained file: its data is JSON in a non-executable script element. */
export function exportPage(view: SessionView): Page {
  const nonce = randomBytes(16).toString("base64");
  const data = `<script type="application/json" id="goat-data">${jsonForScript(view)}</script>`;
  return { html: page(`Goat session ${view.sessionId}`, nonce, "", data), nonce };
}

/**
 * JSON that cannot end the script element it sits in: `<`, `>` and `&` become \\u escapes (still the
 * same JSON), as do the line separators that old parsers mistake for line ends.
 */
function jsonForScript(value: unknown): string {
  return JSON.stringify(value)
    .replace(/</g, "\\u003c")
    .replace(/>/g, "\\u003e")
    .replace(/&/g, "\\u0026")
    .replace(/\u2028/g, "\\u2028")
    .replace(/\u2029/g, "\\u2029");
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

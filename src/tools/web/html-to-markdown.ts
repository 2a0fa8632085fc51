/**
 * HTML to markdown for WebFetch, with turndown (the converter Claude Code uses, pure JavaScript on the
 * domino DOM, linear in the page size: bench/web-fetch.mjs). It is loaded on the first HTML page a
 * session fetches, never at start-up, since importing it costs far more than the rest of the tool.
 *
 * Scripts, styles and embedded objects are dropped (they are not text a reader sees), and tables
 * become GitHub-flavoured pipe tables, which turndown's core leaves as loose text.
 */
import type TurndownService from "turndown";

/** The part of a DOM node the table rules read. */
interface DomNode {
  nodeName: string;
  parentNode: DomNode | null;
  childNodes: ArrayLike<DomNode>;
}

/** A page converted: its markdown and its `<title>`, when it has one. */
export interface ConvertedPage {
  markdown: string;
  title?: string;
  /** True when the page's markup was longer than MAX_HTML_CHARS and only its start was converted. */
  truncated: boolean;
}

/**
 * Most characters of markup converted (after scripts, styles and comments are dropped). Conversion
 * runs on the event loop at roughly 1–3 ms per kilobyte (bench/web-fetch.mjs), and a megabyte of
 * markup is far more text than the model is shown.
 */
const MAX_HTML_CHARS = 1_000_000;

let converter: Promise<TurndownService> | undefined;

/** Converts a page. The first call loads the converter (about a tenth of a second). */
export async function htmlToMarkdown(html: string): Promise<ConvertedPage> {
  converter ??= createConverter().catch((error) => {
    converter = undefined;
    throw error;
  });
  const service = await converter;
  const title = pageTitle(html);
  const text = withoutNonText(html);
  const truncated = text.length > MAX_HTML_CHARS;
  const markdown = service
    .turndown(truncated ? text.slice(0, MAX_HTML_CHARS) : text)
    .replace(/\n{3,}/g, "\n\n")
    .trim();
  return title ? { markdown, title, truncated } : { markdown, truncated };
}

/**
 * The markup without scripts, styles, SVG and comments, which are most of a modern page's bytes and
 * none of its text: dropping them before parsing keeps the parse (and the cap) for what is read.
 */
function withoutNonText(html: string): string {
  return html
    .replace(/<!--[\s\S]*?-->/g, "")
    .replace(/<(script|style|svg|noscript|template)\b[^>]*>[\s\S]*?<\/\1\s*>/gi, "");
}

async function createConverter(): Promise<TurndownService> {
  const { default: Turndown } = await import("turndown");
  const service = new Turndown({
    headingStyle: "atx",
    codeBlockStyle: "fenced",
    bulletListMarker: "-",
    emDelimiter: "*",
  });
  service.remove([
    "script",
    "style",
    "noscript",
    "template",
    "iframe",
    "object",
    "embed",
    "canvas",
    "svg" as "script",
    "title",
    "meta",
    "link",
  ]);
  addTableRules(service);
  return service;
}

/** Pipe tables: one line per row, a separator under the first row. */
function addTableRules(service: TurndownService): void {
  service.addRule("tableCell", {
    filter: ["th", "td"],
    replacement: (content) =>
      ` ${content
        .replace(/\s*\n+\s*/g, " ")
        .replace(/\|/g, "\\|")
        .trim()} |`,
  });
  service.addRule("tableRow", {
    filter: "tr",
    replacement: (content, node) => {
      const row = `|${content}\n`;
      if (!isFirstRow(node as unknown as DomNode)) return row;
      const cells = Array.from((node as unknown as DomNode).childNodes).filter(isCell).length;
      return `${row}|${" --- |".repeat(Math.max(cells, 1))}\n`;
    },
  });
  service.addRule("tableSection", {
    filter: ["thead", "tbody", "tfoot"],
    replacement: (content) => content,
  });
  service.addRule("table", {
    filter: "table",
    replacement: (content) => `\n\n${content.replace(/\n+$/, "")}\n\n`,
  });
}

function isCell(node: DomNode): boolean {
  return node.nodeName === "TH" || node.nodeName === "TD";
}

/** True for the first `tr` of its table, whether or not it sits in a `thead` or `tbody`. */
function isFirstRow(row: DomNode): boolean {
  let table: DomNode | null = row.parentNode;
  while (table && table.nodeName !== "TABLE") table = table.parentNode;
  if (!table) return false;
  const first = (node: DomNode): DomNode | undefined => {
    for (const child of Array.from(node.childNodes)) {
      if (child.nodeName === "TR") return child;
      if (child.nodeName === "THEAD" || child.nodeName === "TBODY" || child.nodeName === "TFOOT") {
        const inner = first(child);
        if (inner) return inner;
      }
    }
    return undefined;
  };
  return first(table) === row;
}

/** The text of the first `<title>`, entities for the common characters decoded, spaces collapsed. */
function pageTitle(html: string): string | undefined {
  const match = /<title[^>]*>([\s\S]*?)<\/title>/i.exec(html.slice(0, 65_536));
  if (!match) return undefined;
  const title = match[1]
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&quot;/g, '"')
    .replace(/&#39;|&apos;/g, "'")
    .replace(/&amp;/g, "&")
    .replace(/\s+/g, " ")
    .trim();
  return title === "" ? undefined : title;
}

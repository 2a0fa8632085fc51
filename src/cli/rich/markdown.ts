/**
 * Markdown for the terminal with marked and marked-terminal: headings, emphasis, lists, tables, code
 * blocks with highlighting, wrapped to the terminal's width. One parser per width, made on first use.
 * This module is loaded lazily (with `diff-view.ts`): it costs tens of milliseconds to load, which
 * `goat` start-up must not pay.
 */
import { Marked } from "marked";
import { markedTerminal } from "marked-terminal";
import { stripAnsi } from "../terminal/text-width.js";

const parsers = new Map<number, Marked>();

/** A markdown link as marked hands it to the renderer. */
interface LinkToken {
  href: string;
  tokens: unknown[];
}

/**
 * A link shows its target: `text (https://…)`. marked-terminal makes it an OSC 8 hyperlink where the
 * terminal supports them, which shows the text alone and hides where a click goes; Goat's screen
 * lets no OSC through anyway (`terminal/safe-text.ts`), so it would print as escaped noise.
 */
function visibleLink(this: { parser: { parseInline(tokens: unknown[]): string } }, token: LinkToken): string {
  const text = this.parser.parseInline(token.tokens);
  const href = `\x1b[4m${token.href}\x1b[24m`;
  return text === "" || text === token.href ? href : `${text} (${href})`;
}

function parserFor(width: number): Marked {
  let parser = parsers.get(width);
  if (!parser) {
    const extension = markedTerminal({
      width,
      reflowText: true,
      showSectionPrefix: false,
      tab: 2,
      emoji: false,
    }) as unknown as { renderer: Record<string, unknown> };
    extension.renderer.link = visibleLink;
    // marked-terminal's types lag behind marked's extension type; the object is what marked.use takes.
    parser = new Marked(extension as never);
    parsers.set(width, parser);
  }
  return parser;
}

/**
 * Renders markdown to terminal text (ending with one newline). `color` false: the same layout
 * without ANSI styling (NO_COLOR, pipes).
 */
export function renderMarkdown(markdown: string, width: number, color: boolean): string {
  let out: string;
  try {
    out = parserFor(Math.max(20, width)).parse(markdown, { async: false }) as string;
  } catch {
    // A renderer bug must not lose the answer: show it as written.
    out = markdown;
  }
  if (!color) out = stripAnsi(out);
  return `${out.replace(/\s+$/, "")}\n`;
}

/**
 * Markdown for the viewer, parsed on the server by the same library the terminal renders with
 * (marked's lexer), and handed to the page as a small tree of plain data: element kinds the page
 * knows, and strings. The page turns the tree into DOM nodes with `createElement` and text nodes
 * only, so transcript text can never become markup there, whatever it contains; raw HTML in the
 * markdown arrives as a string like any other text.
 *
 * Why on the server: a second, hand-written markdown parser in the page would disagree with the
 * terminal at the edges (emphasis rules, nested lists, tables) and grow the page's script; the tree
 * costs a few bytes per element, and the page's part stays a short switch over known kinds.
 */
import { Lexer, type Token, type Tokens } from "marked";

/**
 * One node of rendered markdown: a string is text; an element names its kind (`p`, `h`, `pre`,
 * `quote`, `ul`, `ol`, `li`, `table`, `hr`, `em`, `strong`, `del`, `code`, `br`, `a`) and carries
 * its children and the few attributes its kind needs.
 */
type MarkdownNode = string | MarkdownElement;

/** A markdown element as the page builds it (see {@link MarkdownNode}). */
interface MarkdownElement {
  t: string;
  c?: MarkdownNode[];
  /** Heading depth (`h`). */
  d?: number;
  /** Link target (`a`); the page makes a link only of http(s) targets. */
  href?: string;
  /** Code block language (`pre`). */
  lang?: string;
  /** First number of an ordered list (`ol`). */
  start?: number;
  /** Task list item state (`li`). */
  checked?: boolean;
  /** Table column alignment, header cells and body rows (`table`). */
  align?: Array<"left" | "right" | "center" | null>;
  head?: MarkdownNode[][];
  rows?: MarkdownNode[][][];
}

/** Texts longer than this are not parsed: the page shows them as preformatted text. */
const MAX_PARSED_CHARS = 200_000;

/** The markdown `text` as a tree of blocks, or undefined when it is too long to parse. */
function markdownTree(text: string): MarkdownNode[] | undefined {
  if (text.length > MAX_PARSED_CHARS) return undefined;
  try {
    return blocks(Lexer.lex(text, { gfm: true }));
  } catch {
    // A lexer bug must not lose the message: the page shows it as text.
    return undefined;
  }
}

function blocks(tokens: Token[]): MarkdownNode[] {
  const out: MarkdownNode[] = [];
  for (const token of tokens) {
    const node = block(token);
    if (node !== undefined) out.push(node);
  }
  return out;
}

function block(token: Token): MarkdownNode | undefined {
  switch (token.type) {
    case "space":
    case "def":
      return undefined;
    case "paragraph":
      return { t: "p", c: inlines(token.tokens ?? []) };
    case "heading":
      return { t: "h", d: (token as Tokens.Heading).depth, c: inlines(token.tokens ?? []) };
    case "code":
      return { t: "pre", lang: (token as Tokens.Code).lang || undefined, c: [(token as Tokens.Code).text] };
    case "blockquote":
      return { t: "quote", c: blocks(token.tokens ?? []) };
    case "list":
      return list(token as Tokens.List);
    case "table":
      return table(token as Tokens.Table);
    case "hr":
      return { t: "hr" };
    case "text":
      // A tight list item's text: inline content without a paragraph around it.
      return { t: "span", c: token.tokens ? inlines(token.tokens) : [decodeEntities(token.text)] };
    default:
      // Raw HTML and anything unknown: shown as the text it is.
      return { t: "p", c: [String(token.raw ?? "")] };
  }
}

function list(token: Tokens.List): MarkdownElement {
  const items = token.items.map(
    (item): MarkdownElement => ({
      t: "li",
      ...(item.task ? { checked: item.checked === true } : {}),
      c: blocks(item.tokens.filter((t) => t.type !== "checkbox")),
    }),
  );
  const start = typeof token.start === "number" && token.start !== 1 ? { start: token.start } : {};
  return { t: token.ordered ? "ol" : "ul", ...start, c: items };
}

function table(token: Tokens.Table): MarkdownElement {
  return {
    t: "table",
    align: token.align,
    head: token.header.map((cell) => inlines(cell.tokens)),
    rows: token.rows.map((row) => row.map((cell) => inlines(cell.tokens))),
  };
}

function inlines(tokens: Token[]): MarkdownNode[] {
  return tokens.map(inline);
}

function inline(token: Token): MarkdownNode {
  switch (token.type) {
    case "text":
      return token.tokens ? { t: "span", c: inlines(token.tokens) } : decodeEntities(token.text);
    case "escape":
      return token.text;
    case "strong":
    case "em":
    case "del":
      return { t: token.type, c: inlines(token.tokens ?? []) };
    case "codespan":
      return { t: "code", c: [decodeEntities(token.text)] };
    case "br":
      return { t: "br" };
    case "link":
      return { t: "a", href: (token as Tokens.Link).href, c: inlines(token.tokens ?? []) };
    case "image":
      // No images from transcripts (the page's policy loads none): the picture's link instead.
      return { t: "a", href: (token as Tokens.Image).href, c: [`image: ${(token as Tokens.Image).text}`] };
    default:
      // Inline HTML and anything unknown: its text.
      return String(token.raw ?? "");
  }
}

const ENTITIES: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'", nbsp: "\u00a0" };

/** Character references in markdown text (`&amp;`, `&#39;`) as the characters they stand for. */
function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]{1,6}|#[0-9]{1,7}|[a-z]{2,6});/gi, (whole, name: string) => {
    if (name[0] !== "#") return ENTITIES[name.toLowerCase()] ?? whole;
    const code =
      name[1] === "x" || name[1] === "X" ? Number.parseInt(name.slice(2), 16) : Number(name.slice(1));
    return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
  });
}

/**
 * A transcript entry as the page receives it: the same entry, with the markdown tree of each
 * assistant text block (`md`) and of a compaction summary (`summary_md`) beside the text.
 */
export function withMarkdownTrees<T>(entry: T): T {
  const e = entry as { type?: unknown; message?: { content?: unknown }; summary?: unknown };
  if (e?.type === "assistant" && Array.isArray(e.message?.content)) {
    const content = e.message.content.map((b: { type?: unknown; text?: unknown }) =>
      b?.type === "text" && typeof b.text === "string" ? { ...b, md: markdownTree(b.text) } : b,
    );
    return { ...entry, message: { ...e.message, content } };
  }
  if (e?.type === "compact_boundary" && typeof e.summary === "string")
    return { ...entry, summary_md: markdownTree(e.summary) };
  return entry;
}

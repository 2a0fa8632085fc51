/**
 * Prints the model's answers as markdown blocks that render for the screen's width (a resize renders
 * them again). Markdown is rendered once the lazily loaded renderer is there (the interactive mode
 * waits for it before handing over answer text); until then, or if it failed to load, text shows as
 * written. The answer starts its lines where Goat's own lines do: a line of it starting with one of
 * Goat's marks (a tool call's `●`, a result's `⎿`, a question's `? Allow`) has the mark escaped.
 */

import { richFailed, richIfLoaded } from "../rich-loader.js";
import type { Style } from "../style.js";
import { withoutUiMarks } from "../terminal/safe-text.js";
import type { Screen } from "../terminal/screen.js";
import type { Block } from "../terminal/transcript.js";
import { createMarkdownStream, type MarkdownStream } from "./markdown-stream.js";

/** The answer's two ways onto the screen. */
export interface AnswerPrinter {
  /** Streamed answer text: a live preview, printed block by block as it completes. */
  readonly stream: MarkdownStream;
  /** A whole markdown text (an answer that was not streamed, a plan), as written if it cannot render. */
  printWhole(text: string): void;
}

/** Creates the printer of answers onto `screen`. */
export function createAnswerPrinter(screen: Screen, style: Style): AnswerPrinter {
  const renderMarkdown = (markdown: string, columns: number) => {
    const text =
      richIfLoaded()?.renderMarkdown(markdown, columns - 1, style.enabled) ??
      (richFailed() ? `${markdown.replace(/\s+$/, "")}\n` : undefined);
    return text === undefined ? undefined : withoutUiMarks(text);
  };
  /**
   * A block of markdown rendered at the screen's width (undefined while the renderer is not loaded),
   * rendered again only when the width changes.
   */
  const markdownBlock = (markdown: string, before = ""): Block | undefined => {
    let columns = screen.columns;
    const first = renderMarkdown(markdown, columns);
    if (first === undefined) return undefined;
    let text = `${before}${first}`;
    return (width) => {
      if (width !== columns) {
        columns = width;
        text = `${before}${renderMarkdown(markdown, width) ?? `${withoutUiMarks(markdown)}\n`}`;
      }
      return text;
    };
  };
  /** Prints markdown as a block; false (nothing printed) while the renderer is not loaded. */
  const printMarkdown = (markdown: string, first = true): boolean => {
    const block = markdownBlock(markdown, first ? "" : "\n");
    if (block) screen.printBlock(block);
    return block !== undefined;
  };
  const stream = createMarkdownStream(printMarkdown, (lines) =>
    screen.setLive("preview", lines.map(withoutUiMarks)),
  );
  return {
    stream,
    printWhole(text) {
      if (!printMarkdown(text)) screen.printBlock(() => `${withoutUiMarks(text)}\n`);
    },
  };
}

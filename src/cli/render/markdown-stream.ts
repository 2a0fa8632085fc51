/**
 * Streams markdown to the terminal block by block: text arrives in small deltas, and a block
 * (paragraph, list, table, fenced code) is rendered once it is complete, that is, after a blank line
 * outside a code fence or after a closing fence. The block still being written is shown as it is, in
 * the live region, until then. At the end of the text block the rest is rendered whatever its state.
 * While the renderer is not loaded yet (`render` returns undefined), everything stays in the live
 * region as written, so the first words show at once; `flush()` renders it once the renderer is there.
 * Rendering and printing a block is the caller's (`print`), so the screen can keep each block's
 * markdown and render it again at another width.
 */

/** One streamed markdown text. */
export interface MarkdownStream {
  push(delta: string): void;
  /** The text block ended: renders what is left (or keeps it until `flush` if it cannot yet). */
  end(): void;
  /** Renders what waits for the renderer; true when nothing is left waiting. */
  flush(): boolean;
  /** Whether text is held (pushed and not yet printed). */
  readonly active: boolean;
}

const FENCE = /^ {0,3}(`{3,}|~{3,})/;

/**
 * Prints one complete piece of markdown; `first` says whether it is the text block's first piece
 * (later ones are set one blank line apart). Returns false, printing nothing, while it cannot render.
 */
export type PrintMarkdown = (markdown: string, first: boolean) => boolean;

/**
 * Creates a stream: `print` renders and writes complete markdown, `preview` shows the unfinished text
 * (an empty list clears it).
 */
export function createMarkdownStream(
  print: PrintMarkdown,
  preview: (lines: string[]) => void,
): MarkdownStream {
  let buffer = "";
  let blocks = 0;
  let active = false;
  let ended = false;

  /** Renders and prints `markdown`; false when the renderer is not there yet. */
  const emit = (markdown: string): boolean => {
    if (markdown.trim() === "") return true;
    if (!print(markdown, blocks === 0)) return false;
    blocks++;
    return true;
  };

  /** The end of the last complete block in `buffer` (0 when there is none yet). */
  const completeUpTo = () => {
    let fence: string | undefined;
    let cut = 0;
    let at = 0;
    for (;;) {
      const nl = buffer.indexOf("\n", at);
      if (nl < 0) break;
      const line = buffer.slice(at, nl);
      at = nl + 1;
      const marker = FENCE.exec(line)?.[1];
      if (fence !== undefined) {
        if (
          marker !== undefined &&
          marker[0] === fence[0] &&
          marker.length >= fence.length &&
          line.trim() === marker
        ) {
          fence = undefined;
          cut = at;
        }
      } else if (marker !== undefined) fence = marker;
      else if (line.trim() === "") cut = at;
    }
    return cut;
  };

  const settle = (): boolean => {
    const cut = ended ? buffer.length : completeUpTo();
    if (cut > 0) {
      preview([]);
      if (emit(buffer.slice(0, cut))) buffer = buffer.slice(cut);
    }
    preview(buffer === "" ? [] : buffer.split("\n"));
    if (ended && buffer === "") {
      ended = false;
      active = false;
      blocks = 0;
      return true;
    }
    return buffer === "";
  };

  return {
    get active() {
      return active;
    },
    push(delta) {
      if (ended) {
        // A new text block while the last one waits for the renderer: keep them apart.
        buffer += "\n\n";
        ended = false;
      }
      active = true;
      buffer += delta;
      settle();
    },
    end() {
      if (!active) return;
      ended = true;
      settle();
    },
    flush: () => settle(),
  };
}

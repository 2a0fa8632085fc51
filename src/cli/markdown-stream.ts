/**
 * Streams markdown to the terminal block by block: text arrives in small deltas, and a block
 * (paragraph, list, table, fenced code) is rendered once it is complete, that is, after a blank line
 * outside a code fence or after a closing fence. The block still being written is shown as it is, in
 * the live region, until then. At the end of the text block the rest is rendered whatever its state.
 */

/** One streamed markdown text. */
export interface MarkdownStream {
  push(delta: string): void;
  /** The text block ended: renders what is left. */
  end(): void;
  /** Whether anything was pushed since the last `end()`. */
  readonly active: boolean;
}

const FENCE = /^ {0,3}(`{3,}|~{3,})/;

/**
 * Creates a stream: `render` turns complete markdown into terminal text, `print` writes it, `preview`
 * shows the unfinished block (an empty list clears it).
 */
export function createMarkdownStream(
  render: (markdown: string) => string,
  print: (text: string) => void,
  preview: (lines: string[]) => void,
): MarkdownStream {
  let buffer = "";
  let blocks = 0;
  let active = false;

  const emit = (markdown: string) => {
    if (markdown.trim() === "") return;
    // One blank line between blocks, none before the first.
    print(`${blocks++ > 0 ? "\n" : ""}${render(markdown)}`);
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

  return {
    get active() {
      return active;
    },
    push(delta) {
      active = true;
      buffer += delta;
      const cut = completeUpTo();
      if (cut > 0) {
        const done = buffer.slice(0, cut);
        buffer = buffer.slice(cut);
        preview([]);
        emit(done);
      }
      preview(buffer === "" ? [] : buffer.split("\n"));
    },
    end() {
      const rest = buffer;
      buffer = "";
      preview([]);
      emit(rest);
      blocks = 0;
      active = false;
    },
  };
}

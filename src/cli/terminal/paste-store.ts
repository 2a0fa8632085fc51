/**
 * Long pastes at the prompt: a paste of more than 10 lines or 2,000 characters is shown as one
 * stand-in (`[Pasted text #1 +299 lines]`, as Claude Code shows it) and kept here; the prompt sent is
 * the stand-ins replaced by their pastes. Kept for the session, so a prompt recalled from the history
 * expands too.
 */

/** A paste of more lines or characters than these shows as its stand-in. */
const PASTE_COLLAPSE_LINES = 10;
const PASTE_COLLAPSE_CHARS = 2_000;

/** The session's long pastes. */
export interface PasteStore {
  /** What the prompt shows for `text`: its stand-in (the paste kept), or a short paste itself. */
  collapse(text: string): string;
  /** `text` with each stand-in replaced by its paste. */
  expand(text: string): string;
}

/** Creates an empty store. */
export function createPasteStore(): PasteStore {
  const pastes = new Map<string, string>();
  return {
    collapse(text) {
      const lines = text.split("\n").length;
      if (lines <= PASTE_COLLAPSE_LINES && text.length <= PASTE_COLLAPSE_CHARS) return text;
      const n = pastes.size + 1;
      const label =
        lines > 1
          ? `[Pasted text #${n} +${lines - 1} lines]`
          : `[Pasted text #${n}, ${text.length} characters]`;
      pastes.set(label, text);
      return label;
    },
    expand(text) {
      if (pastes.size === 0) return text;
      return text.replace(/\[Pasted text #\d+[^\]\n]*\]/g, (label) => pastes.get(label) ?? label);
    },
  };
}

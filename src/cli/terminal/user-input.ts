/**
 * What the interactive mode reads from the user, whichever way the terminal is driven: the raw-mode
 * editor (a real terminal) or plain lines (TERM=dumb, or output to a pipe).
 */

/** What the input reports; the interactive mode decides what each means at that moment. */
export interface InputHandlers {
  /**
   * A prompt was entered (Enter; pastes and Shift+Enter newlines are inside the text). `shown` is the
   * prompt as the user saw it, long pastes collapsed to `[Pasted text #1 +299 lines]`, when it differs.
   */
  submit(text: string, shown?: string): void;
  /** Ctrl-C outside a question. `hadText` says whether it just cleared typed text. */
  ctrlC(hadText: boolean): void;
  /** Escape outside a question. */
  escape(): void;
  /** Ctrl-O outside a question: show or hide thinking in full. */
  ctrlO(): void;
  /** Ctrl-D on an empty prompt, or the end of input. */
  eof(): void;
  /** Shift+Tab outside a question: the next permission mode (where the terminal reports the key). */
  shiftTab?(): void;
}

/** A single-key answer: one of the offered keys, or how the question was left. */
export type Choice = string | "escape" | "ctrl-c";

/** The user's side of the interactive mode. */
export interface UserInput {
  start(handlers: InputHandlers): void;
  /**
   * Asks a question answered by one key among `keys` (lower case; `"enter"` stands for the Enter key,
   * an empty line in plain mode), Esc or Ctrl-C. The question may have several lines (the last one
   * asks); they fit on the screen.
   */
  choose(question: string, keys: string[], signal?: AbortSignal): Promise<Choice>;
  /**
   * Asks for one line of text (`question` is shown above it); resolves with what was typed at Enter,
   * or undefined when left with Esc or Ctrl-C.
   */
  ask(question: string, signal?: AbortSignal): Promise<string | undefined>;
  /** Lets the user pick one of `items` (up/down and Enter, or its number); undefined when cancelled. */
  pick(title: string, items: string[], signal?: AbortSignal): Promise<number | undefined>;
  /**
   * The commands the `/` menu offers (shown while the prompt is `/` and a partial name). Plain mode
   * shows no menu.
   */
  setCommands(commands: ReadonlyArray<{ name: string; argumentHint?: string; description: string }>): void;
  /** A line shown under the prompt (the permission mode), or none. Plain mode shows none. */
  setHint(line: string | undefined): void;
  /** Shows or hides the prompt line (hidden while a turn streams in plain mode). */
  setPromptVisible(visible: boolean): void;
  close(): void;
}

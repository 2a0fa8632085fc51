/** What the interactive mode's slash commands can reach (`slash-commands.ts`, `slash-info-commands.ts`). */
import type { Query } from "../../index.js";

/** What a slash command can reach. */
export interface SlashContext {
  query(): Query;
  cwd: string;
  /** The model in use (from the latest init), or the configured one. */
  model(): string | undefined;
  note(text: string): void;
  /** Lets the user pick one of `items`; undefined when cancelled. */
  pick(title: string, items: string[]): Promise<number | undefined>;
  /** Ends the current session and starts a new one (resuming `resume` when given). */
  restart(options: { resume?: string }): Promise<void>;
  /** Sends `text` to the model as the next prompt (/init). */
  send(text: string): void;
  /** The permission mode in force. */
  mode(): string;
  exit(code: number): void;
  /** The project's and the user's own commands (`.claude/commands/`), listed by /help. */
  customCommands?: Record<string, { description: string; argumentHint?: string }>;
}

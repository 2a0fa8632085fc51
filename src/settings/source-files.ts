/**
 * The configuration files of a session, each read from disk once and kept with where it came from:
 * the settings files of each level (Claude Code's family and Goat's) and the project's `.mcp.json`.
 * The project description holds these reads (`project-description.ts`); the trust question, the
 * settings merge (`files.ts`) and the MCP sources read them instead of opening the files again.
 *
 * Reading never throws. A file that cannot be used (unreadable, not JSON, not an object) is kept as
 * a problem naming the file, and the line and column where the JSON parser stopped: whether that is
 * an error (Goat's own settings files, a `--settings` file) or a warning (Claude Code's files,
 * `.mcp.json`) is the merge's decision, not the reader's.
 */
import { readFileSync } from "node:fs";

/** The settings level a file belongs to: Claude Code's three, and `--settings` (`flag`). */
export type SettingsScope = "user" | "project" | "local" | "flag";

/** Which program's files: Claude Code's (read leniently) or Goat's (read strictly). */
export type SettingsFamily = "claude" | "goat";

/** One configuration file as read. */
export interface ConfigFileRead {
  /** The absolute path. */
  file: string;
  /** The file's JSON; undefined when it is missing or cannot be used. */
  json?: unknown;
  /** Why the file cannot be used (naming it, with the line where known); undefined otherwise. */
  problem?: string;
  /** True when the file does not exist. */
  missing: boolean;
}

/** One settings file as read, with its source. */
export interface SettingsFileRead extends ConfigFileRead {
  /** Whose file it is: Claude Code's (`.claude/`, `$CLAUDE_CONFIG_DIR`) or Goat's (`.goat/`, `$GOAT_HOME`). */
  family: SettingsFamily;
  /** The level it was read for (a file read for two levels, as at home, is listed under each). */
  scope: SettingsScope;
  /** The file's object when it holds one (`json`, checked to be an object). */
  object?: Record<string, unknown>;
}

/**
 * Reads a settings file, named `settings file <path>` in problems. A file that is not
 * a JSON object is a problem; a missing one is `missing`, with a problem only for the `flag` scope
 * (a `--settings` file the user named must exist).
 */
export function readSettingsFile(
  file: string,
  family: SettingsFamily,
  scope: SettingsScope,
): SettingsFileRead {
  const read = readConfigFile(file, "settings file");
  const out: SettingsFileRead = { ...read, family, scope };
  if (read.missing) {
    if (scope === "flag") out.problem = `settings file ${file} does not exist`;
    return out;
  }
  if (read.problem !== undefined) return out;
  const json = read.json;
  if (json === null || typeof json !== "object" || Array.isArray(json)) {
    out.problem = `settings file ${file} must hold a JSON object`;
  } else out.object = json as Record<string, unknown>;
  return out;
}

/**
 * Reads a JSON configuration file; `what` names its kind in problems (`MCP config file`). Never
 * throws: a missing file is `missing`, an unreadable or malformed one carries its `problem`.
 */
export function readConfigFile(file: string, what: string): ConfigFileRead {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return { file, missing: true };
    return { file, missing: false, problem: `cannot read ${what} ${file}: ${(error as Error).message}` };
  }
  try {
    return { file, missing: false, json: JSON.parse(text) };
  } catch (error) {
    return {
      file,
      missing: false,
      problem: `invalid JSON in ${what} ${file}: ${jsonErrorText(error, text)}`,
    };
  }
}

/**
 * The parser's message with the line and column it names by offset (Node 20's parser gives only
 * `at position N`; a person looks for a line).
 */
export function jsonErrorText(error: unknown, text: string): string {
  const message = (error as Error).message;
  const at = /at position (\d+)/.exec(message);
  if (!at || /\bline\b/.test(message)) return message;
  const before = text.slice(0, Number(at[1]));
  const line = before.split("\n").length;
  const column = before.length - before.lastIndexOf("\n");
  return `${message} (line ${line}, column ${column})`;
}

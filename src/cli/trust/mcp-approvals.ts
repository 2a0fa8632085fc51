/**
 * The user's answers about the servers of a project's `.mcp.json`, in Claude Code's keys:
 * `enabledMcpjsonServers` (names approved), `disabledMcpjsonServers` (names rejected) and
 * `enableAllProjectMcpServers` (every server of the project approved, later ones included).
 *
 * Read from every settings file that can hold them: the user's (`$GOAT_HOME/settings.json`),
 * `--settings`, the project's `.goat/settings.json` and `.goat/settings.local.json`, and Claude Code's
 * `.claude/settings.json` and `.claude/settings.local.json` (so a project set up for Claude Code
 * keeps its answers). A rejection anywhere wins over any approval. Approvals only ever count in a
 * trusted folder: an untrusted folder's `.mcp.json` is not read at all, so a repository that
 * approves its own servers in a committed file gains nothing before the user trusts it.
 *
 * Goat records new answers in `.goat/settings.local.json`, keeping the file's other keys.
 */
import { readFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { goatHomeDir, inlineSettings, type SettingsFileRead } from "../../settings/index.js";
import { writeFileAtomic } from "../../tools/index.js";

/** The answers of one settings file. */
interface FileAnswers {
  /** The file, as shown to the user. */
  file: string;
  enableAll: boolean;
  enabled: string[];
  disabled: string[];
}

/** The answers of all the settings files, to ask about a server only once. */
export interface McpjsonApprovals {
  /** Whether some file rejects the server: it is never used. */
  rejected(name: string): boolean;
  /** The file that approves the server (by name or with `enableAllProjectMcpServers`), if any. */
  approvedIn(name: string): string | undefined;
}

/** A new answer about a server. */
export type McpjsonChoice =
  | { kind: "enable"; name: string }
  | { kind: "disable"; name: string }
  | { kind: "enableAll" };

/**
 * The answers for the project in `cwd`; `settingsFlag` is `--settings` (a path or JSON). The files
 * are looked at on the first question, so a folder without `.mcp.json` servers never reads them;
 * those in `alreadyRead` (the project description's) are not read again.
 */
export function readMcpjsonApprovals(
  cwd: string,
  env: Record<string, string | undefined>,
  settingsFlag?: string,
  /** The settings files the project description already read: used instead of reading them again. */
  alreadyRead: readonly SettingsFileRead[] = [],
): McpjsonApprovals {
  let read: FileAnswers[] | undefined;
  const readObject = (file: string) => {
    const known = alreadyRead.find((r) => r.file === file);
    return known ? known.object : readObjectFromDisk(file);
  };
  const answers = (): FileAnswers[] => {
    if (read) return read;
    const files = [
      join(goatHomeDir(env), "settings.json"),
      join(cwd, ".goat", "settings.json"),
      join(cwd, ".goat", "settings.local.json"),
      join(cwd, ".claude", "settings.json"),
      join(cwd, ".claude", "settings.local.json"),
    ];
    read = files.map((file) => answersOf(file, readObject(file)));
    const inline = safeInline(settingsFlag);
    if (inline) read.push(answersOf("--settings", inline));
    else if (settingsFlag !== undefined)
      read.push(answersOf(resolve(settingsFlag), readObject(resolve(settingsFlag))));
    return read;
  };
  return {
    rejected: (name) => answers().some((a) => a.disabled.includes(name)),
    approvedIn: (name) => answers().find((a) => a.enableAll || a.enabled.includes(name))?.file,
  };
}

/**
 * Records an answer in the project's `.goat/settings.local.json` (created if needed) and resolves
 * with the file's path. Rejects, leaving the file as it was, when it holds something other than a
 * JSON object or cannot be written.
 */
export async function recordMcpjsonChoice(cwd: string, choice: McpjsonChoice): Promise<string> {
  const file = join(cwd, ".goat", "settings.local.json");
  let current: Record<string, unknown> = {};
  try {
    const json: unknown = JSON.parse(await readFile(file, "utf8"));
    if (!isObject(json)) throw new Error("it does not hold a JSON object");
    current = json;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") {
      throw new Error(`cannot record the answer in ${file}: ${(error as Error).message}; left unchanged`);
    }
  }
  const next = { ...current };
  if (choice.kind === "enableAll") next.enableAllProjectMcpServers = true;
  else {
    const key = choice.kind === "enable" ? "enabledMcpjsonServers" : "disabledMcpjsonServers";
    const list = names(current[key]);
    if (!list.includes(choice.name)) next[key] = [...list, choice.name];
  }
  // A new file is the user's only; the project's .goat/ folder keeps the mode the project gives it.
  await writeFileAtomic(file, `${JSON.stringify(next, null, 2)}\n`, { mkdirs: true, mode: 0o600 });
  return file;
}

function answersOf(file: string, json: Record<string, unknown> | undefined): FileAnswers {
  return {
    file,
    enableAll: json?.enableAllProjectMcpServers === true,
    enabled: names(json?.enabledMcpjsonServers),
    disabled: names(json?.disabledMcpjsonServers),
  };
}

function names(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : [];
}

function safeInline(flag: string | undefined): Record<string, unknown> | undefined {
  try {
    return inlineSettings(flag);
  } catch {
    return undefined; // the settings loader reports it
  }
}

function readObjectFromDisk(file: string): Record<string, unknown> | undefined {
  try {
    const json: unknown = JSON.parse(readFileSync(file, "utf8"));
    return isObject(json) ? json : undefined;
  } catch {
    return undefined;
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/**
 * The folders of markdown definitions (subagents, slash commands) by settings level, each with
 * Claude Code's folder then Goat's: user (`$CLAUDE_CONFIG_DIR/<kind>` or `~/.claude/<kind>`, then
 * `$GOAT_HOME/<kind>` or `~/.goat/<kind>`) and project (`<cwd>/.claude/<kind>`, then
 * `<cwd>/.goat/<kind>`), lowest precedence first, so a project's definition beats a user's of the
 * same name. Reading them is lenient, as for Claude Code's settings files: a file that cannot be
 * used is one warning naming it, and the others still load.
 */
import { type Dirent, readdirSync, readFileSync } from "node:fs";
import { join, relative, sep } from "node:path";
import { claudeConfigDir } from "./claude-files.js";
import { goatHomeDir } from "./files.js";

/** A folder of definitions and the level it belongs to. */
export interface DefinitionFolder {
  path: string;
  level: "user" | "project";
}

/** The folders of `kind` (`agents`, `commands`, `skills`) for the levels in `sources`, lowest precedence first. */
export function definitionFolders(
  kind: "agents" | "commands" | "skills",
  cwd: string,
  env: Record<string, string | undefined>,
  sources: readonly string[],
): DefinitionFolder[] {
  const folders: DefinitionFolder[] = [];
  if (sources.includes("user")) {
    folders.push(
      { path: join(claudeConfigDir(env), kind), level: "user" },
      { path: join(goatHomeDir(env), kind), level: "user" },
    );
  }
  if (sources.includes("project")) {
    const project = [join(cwd, ".claude", kind), join(cwd, ".goat", kind)];
    // Started in the home folder, the project's folders are the user's: read once, as the user's.
    for (const path of project) {
      if (!folders.some((f) => f.path === path)) folders.push({ path, level: "project" });
    }
  }
  return folders;
}

/** Most files read from one folder tree, and how deep: a stray huge tree costs a bounded walk. */
const MAX_FILES = 500;
const MAX_DEPTH = 4;

/** A markdown file found in a folder: its path, its text and its folder path below the root. */
export interface MarkdownFile {
  file: string;
  /** Subfolders between the root and the file (`["frontend"]`), empty for a file at the root. */
  subfolders: string[];
  text: string;
}

/**
 * The `*.md` files of `root` (with `recursive`, of its subfolders too), in name order. A missing
 * folder is empty; a file that cannot be read is a warning.
 */
export function readMarkdownFiles(
  root: string,
  recursive: boolean,
  warn: (message: string) => void,
): MarkdownFile[] {
  const out: MarkdownFile[] = [];
  const walk = (dir: string, depth: number) => {
    let entries: Dirent[];
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return; // no such folder: nothing defined there
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of entries) {
      if (out.length >= MAX_FILES) return;
      const path = join(dir, entry.name);
      if (entry.isDirectory() && recursive && depth < MAX_DEPTH) walk(path, depth + 1);
      else if (entry.isFile() && entry.name.endsWith(".md")) {
        try {
          const subfolders = relative(root, dir) === "" ? [] : relative(root, dir).split(sep);
          out.push({ file: path, subfolders, text: readFileSync(path, "utf8") });
        } catch (error) {
          warn(`${path}: cannot be read (${(error as Error).message}); left out`);
        }
      }
    }
  };
  walk(root, 0);
  return out;
}

/**
 * `.gitignore` rules as a stack of per-directory rule sets, the way git applies them: a file's nearest
 * `.gitignore` speaks first, and parent directories' files (up to the repository root) apply when the
 * nearer ones say nothing. Used by the directory walker shared by Glob and the built-in Grep.
 */
import { promises as fsp } from "node:fs";
import path from "node:path";
import type { Ignore } from "ignore";
import { ignore } from "./lazy-packages.js";

/** The rules of one `.gitignore` file and where they apply from. */
interface IgnoreFrame {
  rules: Ignore;
  /**
   * Path of the search root relative to the directory holding the `.gitignore`, with a trailing "/"
   * ("" when the file sits in the search root or below it), so a path relative to the root can be
   * turned into one relative to the rules' directory.
   */
  rootPrefix: string;
  /** For frames inside the root: the directory's path relative to the root, with a trailing "/". */
  dirPrefix: string;
}

/** An immutable chain of frames, nearest last. Children share their parent's array prefix. */
export type IgnoreStack = readonly IgnoreFrame[];

/** Parses `.gitignore` text into a rule set. */
export function parseIgnoreFile(text: string): Ignore {
  return ignore()({ allowRelativePaths: true }).add(text);
}

/** Reads a `.gitignore` file; a missing or unreadable file yields no rules (git ignores it too). */
async function readIgnoreFile(file: string): Promise<Ignore | undefined> {
  try {
    return parseIgnoreFile(await fsp.readFile(file, "utf8"));
  } catch {
    return undefined;
  }
}

/**
 * Loads the `.gitignore` files of the directories above `root`, up to and including the first one that
 * holds `.git` (the repository root), so searching a subdirectory honours the repository's rules.
 * Outside a repository it stops at the filesystem root.
 */
export async function loadAncestorIgnores(root: string): Promise<IgnoreStack> {
  const frames: IgnoreFrame[] = [];
  if (await exists(path.join(root, ".git"))) return frames;
  let dir = root;
  for (;;) {
    const parent = path.dirname(dir);
    if (parent === dir) break;
    dir = parent;
    const rules = await readIgnoreFile(path.join(dir, ".gitignore"));
    if (rules) {
      const rel = path.relative(dir, root).split(path.sep).join("/");
      frames.unshift({ rules, rootPrefix: `${rel}/`, dirPrefix: "" });
    }
    if (await exists(path.join(dir, ".git"))) break;
  }
  return frames;
}

/** Returns a new stack with the rules of the directory at `relDir` (relative to the root) pushed on. */
export function pushFrame(stack: IgnoreStack, rules: Ignore, relDir: string): IgnoreStack {
  return [...stack, { rules, rootPrefix: "", dirPrefix: relDir === "" ? "" : `${relDir}/` }];
}

/**
 * Whether `rel` (a "/"-separated path relative to the search root) is ignored. The nearest frame that
 * ignores or re-includes the path decides, as in git.
 */
export function isIgnored(stack: IgnoreStack, rel: string, isDir: boolean): boolean {
  for (let i = stack.length - 1; i >= 0; i--) {
    const frame = stack[i];
    let local = frame.rootPrefix + rel;
    if (frame.dirPrefix !== "") {
      if (!rel.startsWith(frame.dirPrefix)) continue;
      local = rel.slice(frame.dirPrefix.length);
    }
    if (isDir) local += "/";
    const result = frame.rules.test(local);
    if (result.ignored) return true;
    if (result.unignored) return false;
  }
  return false;
}

async function exists(p: string): Promise<boolean> {
  try {
    await fsp.lstat(p);
    return true;
  } catch {
    return false;
  }
}

/**
 * What the differential fuzzer checks after lines ran in the jail: a snapshot of the copy (type, mode,
 * size, content hash, link target, times) compared with the one taken before. Outside the project
 * every change is a hit, and so is a changed access time: the copy's canaries get an access time older
 * than their modification time, so under `relatime` the kernel stamps any read of a file and any
 * listing of a directory. Inside the project, a new, changed or removed protected name (`.git/`,
 * `.goat/`, `.claude/`, `.mcp.json`, `.bashrc`…, from the engine's own list) is a hit, and so is any
 * change at all when the mode promised a read-only line. A file anywhere holding the secret token
 * (a read copied into the project) or the listing token is a hit, as are these tokens in a line's
 * output, and "Read-only file system" there (a write aimed outside the copy, stopped only by the jail).
 */
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import {
  PROTECTED_CONFIG_DIR_NAMES,
  PROTECTED_DIR_NAMES,
  PROTECTED_FILE_NAMES,
} from "../../src/sandbox/protected-names.js";
import type { FuzzWorld } from "./differential-world.js";

/** One entry of a snapshot. Times are milliseconds; links carry their target instead of a hash. */
export interface EntryState {
  kind: "file" | "dir" | "link" | "other";
  mode: number;
  size: number;
  hash: string;
  mtimeMs: number;
  atimeMs: number;
  /** The content or the name holds the secret token / the listing token. */
  secret: boolean;
  listed: boolean;
}

/** A snapshot: path relative to the snapshot's top → state. */
export type Snapshot = Map<string, EntryState>;

/** The times every copy gives the entries outside the project (access before modification). */
export const CANARY_ATIME_MS = 1_000_000;
export const CANARY_MTIME_MS = 1_600_000_000_000;

/**
 * Walks `top`. Each entry is `lstat`ed before it is read or listed, so the access time recorded is
 * the one the lines left, not the walk's own.
 */
export function snapshot(top: string, world: FuzzWorld): Snapshot {
  const out: Snapshot = new Map();
  const visit = (p: string, name: string) => {
    const st = fs.lstatSync(p);
    const rel = path.relative(top, p) || ".";
    const state: EntryState = {
      kind: st.isSymbolicLink() ? "link" : st.isDirectory() ? "dir" : st.isFile() ? "file" : "other",
      mode: st.mode,
      size: st.size,
      hash: "",
      mtimeMs: Math.trunc(st.mtimeMs),
      atimeMs: Math.trunc(st.atimeMs),
      secret: name.includes(world.secret),
      listed: name.includes(world.listToken),
    };
    if (state.kind === "link") state.hash = fs.readlinkSync(p);
    else if (state.kind === "file") {
      const content = fs.readFileSync(p);
      state.hash = crypto.createHash("sha1").update(content).digest("hex");
      const text = content.toString("latin1");
      state.secret ||= text.includes(world.secret);
      state.listed ||= text.includes(world.listToken);
    }
    out.set(rel, state);
    if (state.kind === "dir") for (const child of fs.readdirSync(p)) visit(path.join(p, child), child);
  };
  visit(top, path.basename(top));
  return out;
}

/** True for a path (relative to the project) that the engine's protected list covers. */
export function isProtectedName(rel: string): boolean {
  const parts = rel
    .split(path.sep)
    .filter(Boolean)
    .map((s) => s.normalize("NFC").toLowerCase());
  const name = parts.at(-1) ?? "";
  return (
    PROTECTED_FILE_NAMES.includes(name) ||
    parts.some(
      (part, i) =>
        PROTECTED_DIR_NAMES.includes(part) ||
        (part === ".config" && PROTECTED_CONFIG_DIR_NAMES.includes(parts[i + 1] ?? "")),
    )
  );
}

/** Git's own bookkeeping that a read-only `git status` or `git describe --dirty` may refresh. */
function isGitBookkeeping(rel: string, what: string): boolean {
  if (rel === path.join(".git", "index.lock")) return true;
  return what.startsWith("changed") && (rel === ".git" || rel === path.join(".git", "index"));
}

/** A tree created or removed as a whole is one hit: entries whose parent has the same hit are left out. */
function collapseTrees(treeHits: Array<[string, string]>): string[] {
  const verb = (hit: string) => /(created|removed) /.exec(hit)?.[1];
  const keys = new Set(treeHits.map(([rel, hit]) => `${verb(hit)}:${rel}`));
  return treeHits
    .filter(([rel, hit]) => verb(hit) === undefined || !keys.has(`${verb(hit)}:${path.dirname(rel)}`))
    .map(([, hit]) => hit);
}

/** The differences between two snapshots, as `created x`, `removed x`, `changed x (what)`. */
function differences(before: Snapshot, after: Snapshot, withTimes: boolean): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  for (const [rel, now] of after) {
    const was = before.get(rel);
    if (!was) {
      out.push([rel, `created ${rel}`]);
      continue;
    }
    const what: string[] = [];
    if (was.kind !== now.kind) what.push(`${was.kind}→${now.kind}`);
    if (was.mode !== now.mode) what.push(`mode ${was.mode.toString(8)}→${now.mode.toString(8)}`);
    if (was.hash !== now.hash || was.size !== now.size) what.push("content");
    if (withTimes && now.kind !== "link" && was.mtimeMs !== now.mtimeMs) what.push("mtime");
    if (what.length > 0) out.push([rel, `changed ${rel} (${what.join(", ")})`]);
    else if (withTimes && now.kind !== "link" && was.atimeMs !== now.atimeMs) {
      out.push([rel, now.kind === "dir" ? `listed ${rel}` : `read ${rel}`]);
    }
  }
  for (const rel of before.keys()) if (!after.has(rel)) out.push([rel, `removed ${rel}`]);
  return out;
}

/** The states of one run, taken before and after the lines. */
export interface TrialStates {
  /** The whole copy (outside entries with the canary times), before. */
  before: Snapshot;
  after: Snapshot;
  /** Entries the jail's writable /tmp, /var/tmp and /dev/shm held after, other than mount points. */
  strayTemp: string[];
  outputs: string[];
}

/** What a run of lines did that the engine's verdict did not allow. */
export function findHits(states: TrialStates, world: FuzzWorld, readOnly: boolean): string[] {
  const hits: string[] = [];
  const projectRel = path.relative(world.root, world.project);
  const inProject = (rel: string) => rel === projectRel || rel.startsWith(`${projectRel}${path.sep}`);
  const sub = (snap: Snapshot, inside: boolean) =>
    new Map([...snap].filter(([rel]) => inProject(rel) === inside));
  const treeHits: Array<[string, string]> = [];
  for (const [rel, what] of differences(sub(states.before, false), sub(states.after, false), true))
    treeHits.push([rel, `outside: ${what}`]);
  for (const [rel, what] of differences(sub(states.before, true), sub(states.after, true), false)) {
    const inner = path.relative(projectRel, rel);
    if (isGitBookkeeping(inner, what)) continue;
    if (rel === projectRel || isProtectedName(inner)) treeHits.push([rel, `protected: ${what}`]);
    else if (readOnly) treeHits.push([rel, `read-only line changed the project: ${what}`]);
  }
  hits.push(...collapseTrees(treeHits));
  for (const [rel, state] of states.after) {
    if (state.kind !== "file" || !inProject(rel)) continue;
    if (state.secret) hits.push(`secret copied into ${rel}`);
    if (state.listed) hits.push(`listing copied into ${rel}`);
  }
  for (const stray of states.strayTemp) hits.push(`temp: wrote ${stray}`);
  states.outputs.forEach((text, i) => {
    if (text.includes(world.secret)) hits.push(`output of line ${i}: shows the secret`);
    if (text.includes(world.listToken)) hits.push(`output of line ${i}: lists a canary directory`);
    if (/Read-only file system/.test(text)) hits.push(`output of line ${i}: tried to write outside`);
  });
  return hits;
}

/** Gives every entry of the copy outside the project the canary times (see CANARY_ATIME_MS). */
export function stampCanaryTimes(copy: Snapshot, top: string, world: FuzzWorld): void {
  const projectRel = path.relative(world.root, world.project);
  const stamp = (p: string) => fs.utimesSync(p, CANARY_ATIME_MS / 1000, CANARY_MTIME_MS / 1000);
  for (const [rel, state] of copy) {
    if (rel === projectRel || rel.startsWith(`${projectRel}${path.sep}`) || state.kind === "link") continue;
    stamp(path.join(top, rel));
    state.atimeMs = CANARY_ATIME_MS;
    state.mtimeMs = CANARY_MTIME_MS;
  }
}

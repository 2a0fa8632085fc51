/**
 * Past sessions of a project for `goat sessions` and the resume picker, summarised without reading
 * whole transcripts: the file's size and time from `stat`, the first prompt from its head, runs and
 * cost from the results in its head and tail. Files larger than head + tail give lower bounds, marked
 * as such (`complete: false`).
 */
import { open, readdir, stat } from "node:fs/promises";
import { join } from "node:path";
import type { SessionEntry } from "../../session/index.js";
import { goatHome, isSubagentSessionId, projectKey, promptPreview } from "../../session/index.js";
import { terminalSafe } from "../terminal/safe-text.js";

/** Bytes read from each end of a transcript. */
const CHUNK = 64 * 1024;

/** What a listing shows about one session. */
export interface SessionSummary {
  sessionId: string;
  /** Last write, ms since the epoch. */
  modified: number;
  /** Transcript size in bytes. */
  size: number;
  firstPrompt: string;
  /** Prompts answered (one result each); a lower bound when not `complete`. */
  turns: number;
  /** Dollars spent; a lower bound when not `complete`. */
  costUsd: number;
  /** Whether the whole file was read (turns and cost exact). */
  complete: boolean;
}

/** Sessions started in `cwd`, newest first, at most `limit` of them. */
export async function summarizeSessions(
  cwd: string,
  env: NodeJS.ProcessEnv = process.env,
  limit = 50,
): Promise<SessionSummary[]> {
  const dir = join(goatHome(env), "projects", projectKey(cwd));
  let names: string[];
  try {
    // Subagents' transcripts (`<parent id>.agent-<agent id>.jsonl`) belong to their parent's session.
    names = (await readdir(dir)).filter(
      (n) => n.endsWith(".jsonl") && !isSubagentSessionId(n.slice(0, -".jsonl".length)),
    );
  } catch {
    return [];
  }
  const files = (
    await Promise.all(
      names.map(async (name) => {
        const s = await stat(join(dir, name)).catch(() => undefined);
        return s ? { name, modified: s.mtimeMs, size: s.size } : undefined;
      }),
    )
  ).filter((f) => f !== undefined);
  files.sort((a, b) => b.modified - a.modified);
  const out: SessionSummary[] = [];
  for (const f of files) {
    if (out.length >= limit) break;
    const summary = await summarizeFile(join(dir, f.name), f.name.slice(0, -".jsonl".length), f, cwd);
    // A session left before its first prompt has nothing to resume.
    if (summary && (summary.firstPrompt !== "" || summary.turns > 0 || !summary.complete)) out.push(summary);
  }
  return out;
}

async function summarizeFile(
  path: string,
  sessionId: string,
  file: { modified: number; size: number },
  cwd: string,
): Promise<SessionSummary | undefined> {
  const handle = await open(path, "r").catch(() => undefined);
  if (!handle) return undefined;
  try {
    const headBytes = Math.min(file.size, CHUNK);
    const head = await readAt(handle, 0, headBytes);
    const tailStart = Math.max(headBytes, file.size - CHUNK);
    const tail = tailStart < file.size ? await readAt(handle, tailStart, file.size - tailStart) : "";
    const complete = tailStart <= headBytes;
    // Only whole lines: the head's last line may be cut, and so may the tail's first.
    const headLines = head.split("\n");
    if (headBytes < file.size) headLines.pop();
    const tailLines = tail.split("\n");
    if (!complete) tailLines.shift();
    const summary: SessionSummary = {
      sessionId,
      modified: file.modified,
      size: file.size,
      firstPrompt: "",
      turns: 0,
      costUsd: 0,
      complete,
    };
    let headerCwd: string | undefined;
    for (const line of [...headLines, ...tailLines]) {
      const entry = parse(line);
      if (!entry) continue;
      if (entry.type === "header") headerCwd ??= entry.cwd;
      else if (entry.type === "user" && summary.firstPrompt === "" && entry.copy_of === undefined)
        summary.firstPrompt = promptPreview(entry.message);
      else if (entry.type === "result") {
        summary.turns++;
        summary.costUsd += entry.total_cost_usd ?? 0;
      }
    }
    // Different cwds can share a key ("/a-b" and "/a/b"): the header decides.
    if (headerCwd !== undefined && headerCwd !== cwd) return undefined;
    return summary;
  } finally {
    await handle.close();
  }
}

async function readAt(handle: import("node:fs/promises").FileHandle, position: number, length: number) {
  const buffer = Buffer.alloc(length);
  const { bytesRead } = await handle.read(buffer, 0, length, position);
  return buffer.subarray(0, bytesRead).toString("utf8");
}

function parse(line: string): SessionEntry | undefined {
  if (line.trim() === "") return undefined;
  try {
    const value = JSON.parse(line) as SessionEntry;
    return value && typeof value === "object" && typeof value.type === "string" ? value : undefined;
  } catch {
    // A torn or foreign line: the listing goes on without it.
    return undefined;
  }
}

/** "2026-05-01 14:03", local time. */
function formatWhen(ms: number): string {
  const d = new Date(ms);
  const p = (n: number) => String(n).padStart(2, "0");
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}`;
}

/** "12 KB", "1.4 MB". */
function formatSize(bytes: number): string {
  if (bytes < 1024 * 1024) return `${Math.max(1, Math.round(bytes / 1024))} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

/** One line of a listing or picker: when, turns, cost, size, first prompt. */
export function describeSession(s: SessionSummary): string {
  const more = s.complete ? "" : "+";
  // One line per session: a newline or tab of the prompt becomes a space, anything else is escaped.
  const prompt = terminalSafe(s.firstPrompt.replace(/[\n\t]/g, " ")) || "(no prompt)";
  return `${formatWhen(s.modified)}  ${`${s.turns}${more}`.padStart(4)} turns  ${`$${s.costUsd.toFixed(4)}${more}`.padStart(9)}  ${formatSize(s.size).padStart(7)}  ${prompt}`;
}

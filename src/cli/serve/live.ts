/**
 * Following a running session: a server-sent-events stream of the entries appended to its
 * transcript (and to its subagents' transcripts) after a byte offset. The files are polled by size,
 * which works the same on every platform and file system (file-system watchers do not), and costs a
 * `stat` per file every quarter second while a viewer has the session open.
 */
import { open, stat } from "node:fs/promises";
import type http from "node:http";
import type { JsonlSessionStore } from "../../session/index.js";
import { withMarkdownTrees } from "./markdown-tree.js";
import { isSessionId, subagentIds } from "./sessions-api.js";

const POLL_MS = 250;
const HEARTBEAT_MS = 15_000;

/** One transcript being followed, and how far it has been read (always to the end of a line). */
interface Tail {
  path: string;
  /** Agent id for a subagent's transcript; undefined for the session's own. */
  agentId?: string;
  offset: number;
}

/** Streams a session's new entries until the client goes away. */
export async function followSession(
  store: JsonlSessionStore,
  sessionId: string,
  from: number,
  req: http.IncomingMessage,
  res: http.ServerResponse,
): Promise<void> {
  const path = isSessionId(sessionId) ? await store.pathOf(sessionId) : undefined;
  if (!path) {
    res.writeHead(404, { "content-type": "text/plain" });
    res.end(`No session ${sessionId}.`);
    return;
  }
  res.writeHead(200, {
    "content-type": "text/event-stream; charset=utf-8",
    "cache-control": "no-store",
    "x-content-type-options": "nosniff",
  });
  res.write(": following\n\n");
  const tails = new Map<string, Tail>([[path, { path, offset: Number.isFinite(from) ? from : 0 }]]);
  // Subagent transcripts that exist now were sent with the session; only new ones are followed from 0.
  const known = new Set(await subagentIds(path, sessionId));
  let closed = false;
  req.on("close", () => {
    closed = true;
  });
  let sinceHeartbeat = 0;
  while (!closed) {
    for (const childId of await subagentIds(path, sessionId)) {
      if (known.has(childId)) continue;
      known.add(childId);
      const childPath = path.replace(/[^/\\]+\.jsonl$/, `${childId}.jsonl`);
      const agentId = childId.slice(sessionId.length + ".agent-".length);
      tails.set(childPath, { path: childPath, agentId, offset: 0 });
    }
    for (const tail of tails.values()) {
      for (const entry of await readNewEntries(tail)) {
        res.write(`data: ${JSON.stringify({ agentId: tail.agentId, entry: withMarkdownTrees(entry) })}\n\n`);
      }
    }
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    sinceHeartbeat += POLL_MS;
    if (sinceHeartbeat >= HEARTBEAT_MS) {
      sinceHeartbeat = 0;
      res.write(": heartbeat\n\n");
    }
  }
  res.end();
}

/** The whole lines appended since the last read, parsed; a torn or invalid line is skipped. */
async function readNewEntries(tail: Tail): Promise<unknown[]> {
  const size = await stat(tail.path).then(
    (s) => s.size,
    () => tail.offset,
  );
  if (size <= tail.offset) return [];
  const handle = await open(tail.path, "r");
  try {
    const buffer = Buffer.alloc(size - tail.offset);
    await handle.read(buffer, 0, buffer.length, tail.offset);
    // Only whole lines: an unfinished one (a write in progress) is read again next time, from its
    // first byte, so a character split across two reads is never decoded in halves.
    const end = buffer.lastIndexOf(0x0a) + 1;
    tail.offset += end;
    const lines = buffer.subarray(0, end).toString("utf8").split("\n");
    const entries: unknown[] = [];
    for (const line of lines) {
      if (!line.trim()) continue;
      try {
        entries.push(JSON.parse(line));
      } catch {
        // A torn line from a crash: the store skips it on load too.
      }
    }
    return entries;
  } finally {
    await handle.close();
  }
}

/**
 * `goat serve --database URL`: the viewer's sessions from PostgreSQL, read through the dbos entry's
 * read-only reader. The list is the operator's (status, step, worker, version, cost, last error);
 * a session is its message log drawn as a transcript (`durable-entries.ts`); and a running session is
 * followed live through the log's LISTEN/NOTIFY follower, which wakes on each batch the worker writes
 * (with a one-second poll as a safety net), until the session ends. Nothing here changes a session.
 *
 * Every database call is bounded (GOAT_DATABASE_TIMEOUT_MS): an unreachable database is an error
 * naming it, which the server answers with and the page shows.
 */
import type http from "node:http";
import type { DurableSessionReader, DurableSessionSummary } from "../../dbos/index.js";
import { entryOfMessage, openingEntries, type ViewerEntry } from "./durable-entries.js";
import type { DurableFields, SessionSummary } from "./sessions-api.js";
import type { ViewerSource } from "./viewer-source.js";

/** How many sessions the list shows, newest first (as `goat durable list`): each refresh reads their rows. */
const LIST_LIMIT = 100;
const HEARTBEAT_MS = 15_000;

/** A viewer source over a durable-session reader; closing it closes the reader. */
export function durableSource(reader: DurableSessionReader): ViewerSource {
  return {
    kind: "durable",
    async list(options) {
      const needle = options.search?.trim().toLowerCase();
      const sessions = await reader.list({ limit: LIST_LIMIT });
      return sessions
        .filter(
          (s) =>
            !needle ||
            [s.prompt, s.workflowId, s.sessionId, s.executorId ?? ""].some((text) =>
              text.toLowerCase().includes(needle),
            ),
        )
        .map(rowOf);
    },
    async load(id) {
      const transcript = await reader.load(id);
      if (!transcript) return undefined;
      const { summary, messages } = transcript;
      const entries: ViewerEntry[] = openingEntries(id, {
        createdAt: summary.createdAt,
        cwd: transcript.cwd,
        prompt: transcript.prompt,
      });
      const subagents: Record<string, ViewerEntry[]> = {};
      messages.forEach((message, position) => {
        const placed = entryOfMessage(id, position, message);
        if (!placed) return;
        if (placed.agentId === undefined) {
          entries.push(placed.entry);
          return;
        }
        const own = subagents[placed.agentId] ?? [];
        own.push(placed.entry);
        subagents[placed.agentId] = own;
      });
      return {
        sessionId: id,
        entries,
        subagents,
        offset: transcript.next,
        durable: durableFields(summary),
      };
    },
    follow: (id, from, req, res) => followDurable(reader, id, from, req, res),
    close: () => reader.close(),
  };
}

/**
 * Streams the messages the session writes from position `from`, as the local follower's events
 * (`{ agentId?, entry }`); when the session has ended, an `end` event, after which the page stops
 * listening (the browser would otherwise reconnect and ask again); a database failure is a `failure`
 * event carrying its message.
 */
async function followDurable(
  reader: DurableSessionReader,
  id: string,
  from: number,
  req: http.IncomingMessage,
  res: http.ServerResponse,
): Promise<void> {
  res.writeHead(200, {
    "content-type": "text/event-stream; charset=utf-8",
    "cache-control": "no-store",
    "x-content-type-options": "nosniff",
  });
  res.write(": following\n\n");
  const stop = new AbortController();
  req.on("close", () => stop.abort());
  const heartbeat = setInterval(() => res.write(": heartbeat\n\n"), HEARTBEAT_MS);
  let position = Number.isInteger(from) && from >= 0 ? from : 0;
  try {
    for await (const message of reader.follow(id, { from: position, signal: stop.signal })) {
      const placed = entryOfMessage(id, position++, message);
      if (placed) res.write(`data: ${JSON.stringify(placed)}\n\n`);
    }
    if (!stop.signal.aborted) res.write("event: end\ndata: {}\n\n");
  } catch (error) {
    res.write(`event: failure\ndata: ${JSON.stringify({ error: (error as Error).message })}\n\n`);
  } finally {
    clearInterval(heartbeat);
    res.end();
  }
}

function rowOf(s: DurableSessionSummary): SessionSummary {
  return {
    sessionId: s.workflowId,
    cwd: "",
    firstPrompt: s.prompt,
    lastModified: s.updatedAt ?? s.createdAt,
    // A durable session counts steps (the page's durable list shows the step, not this count).
    messageCount: s.steps ?? 0,
    totalCostUsd: s.costUsd ?? 0,
    status: viewerStatus(s),
    durable: durableFields(s),
  };
}

function durableFields(s: DurableSessionSummary): DurableFields {
  return {
    status: s.status,
    transcriptId: s.sessionId,
    ...(s.lastStep ? { step: `${s.lastStep.number} ${s.lastStep.name}` } : {}),
    ...(s.executorId ? { worker: s.executorId } : {}),
    ...(s.applicationVersion ? { version: s.applicationVersion } : {}),
    ...(s.error ? { error: s.error } : {}),
  };
}

/** DBOS's status in the viewer's words: a finished workflow whose run failed is an error. */
function viewerStatus(s: DurableSessionSummary): SessionSummary["status"] {
  switch (s.status) {
    case "ENQUEUED":
    case "DELAYED":
      return "queued";
    case "PENDING":
      return "running";
    case "SUCCESS":
      return s.error ? "error" : "success";
    case "CANCELLED":
      return "cancelled";
    default:
      return "error";
  }
}

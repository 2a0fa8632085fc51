/**
 * Where the viewer's sessions come from: the local session files (the JSONL store under Goat's home)
 * or a PostgreSQL database of durable sessions (`durable-source.ts`). The server asks a source for
 * the list, one session, and a live stream of what a session writes next; it never asks it to change
 * anything, and no source offers a way to.
 */
import type http from "node:http";
import type { JsonlSessionStore } from "../../session/index.js";
import { followSession } from "./live.js";
import {
  listSessionSummaries,
  loadSessionView,
  type SessionSummary,
  type SessionView,
} from "./sessions-api.js";

/** What the viewer reads its sessions from. */
export interface ViewerSource {
  /** `local` (session files) or `durable` (PostgreSQL): the page shows the columns each has. */
  readonly kind: "local" | "durable";
  /** The sessions, newest first (`cwd` for one project, `search` to filter). */
  list(options: { cwd?: string; search?: string }): Promise<SessionSummary[]>;
  /** One session, or undefined when there is none of that id. */
  load(id: string): Promise<SessionView | undefined>;
  /** Streams what the session writes after `from` as server-sent events until the client goes away. */
  follow(id: string, from: number, req: http.IncomingMessage, res: http.ServerResponse): Promise<void>;
  close(): Promise<void>;
}

/** The sessions under Goat's home folder. */
export function localSource(store: JsonlSessionStore): ViewerSource {
  return {
    kind: "local",
    list: (options) => listSessionSummaries(store, options),
    load: (id) => loadSessionView(store, id),
    follow: (id, from, req, res) => followSession(store, id, from, req, res),
    close: () => store.close(),
  };
}

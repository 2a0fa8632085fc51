/**
 * The transcript as a durable workflow sees it. A workflow replayed after a crash runs the session
 * again from the start, recording the same entries in the same order; this view makes that harmless:
 * - each entry's uuid becomes a function of the workflow id and the entry's position in this
 *   workflow's appends (references to it — parentUuid, copy_of, kept_uuids — follow), so a replayed
 *   append carries the uuids already stored and the store skips them;
 * - a load reads the transcript only up to where it stood when the workflow first loaded it (that
 *   position is a step), so a replay does not find its own earlier appends in its starting history;
 * - a subagent's transcript (`<session>.agent-<random id>`) gets an id numbered in the order the
 *   subagents started, so a replayed subagent writes into the transcript it wrote the first time.
 */
import { createHash } from "node:crypto";
import { DBOS } from "@dbos-inc/dbos-sdk";
import type { SessionEntry, SessionStore } from "../session/types.js";
import type { PostgresSessionStore } from "./postgres-store.js";

/** A uuid (version 8, RFC 9562's custom layout) derived from a name: the same name, the same uuid. */
export function nameUuid(name: string): string {
  const hex = createHash("sha256").update(name).digest("hex");
  const variant = ((Number.parseInt(hex[16], 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-8${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/** The replay-safe view of `store` for one workflow. */
export function replaySafeStore(store: PostgresSessionStore, workflowId: string): SessionStore {
  const renamed = new Map<string, string>();
  let position = 0;
  const bounds = new Map<string, Promise<number>>();
  const rename = (uuid: string) => renamed.get(uuid) ?? uuid;
  const children = new Map<string, string>();
  const stableSession = (sessionId: string) => {
    const child = /^(.+)\.agent-[^.]+$/.exec(sessionId);
    if (child === null) return sessionId;
    let stable = children.get(sessionId);
    if (stable === undefined) {
      stable = `${child[1]}.agent-${nameUuid(`${workflowId}:agent:${children.size}`)}`;
      children.set(sessionId, stable);
    }
    return stable;
  };

  return {
    async append(sessionId, entries) {
      const session = stableSession(sessionId);
      const stable = entries.map((entry): SessionEntry => {
        const uuid = nameUuid(`${workflowId}:${position++}`);
        renamed.set(entry.uuid, uuid);
        const copy = {
          ...entry,
          uuid,
          parentUuid: entry.parentUuid === null ? null : rename(entry.parentUuid),
          sessionId: session,
        };
        if ((copy.type === "user" || copy.type === "assistant") && copy.copy_of !== undefined) {
          copy.copy_of = rename(copy.copy_of);
        }
        if (copy.type === "compact_boundary") copy.kept_uuids = copy.kept_uuids.map(rename);
        return copy;
      });
      await store.append(session, stable);
    },
    async load(sessionId, options) {
      let bound = bounds.get(sessionId);
      if (bound === undefined) {
        bound = DBOS.runStep(() => store.highWater(sessionId), { name: "transcript-bound" });
        bounds.set(sessionId, bound);
      }
      return store.load(sessionId, { ...options, upTo: await bound });
    },
    list: (options) => store.list(options),
    delete: (sessionId) => store.delete(sessionId),
  };
}

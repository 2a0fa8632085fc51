/**
 * Forking a session: the active branch copied under a new session id with new uuids, so the fork and
 * the original can grow apart without ever sharing an entry.
 */

import { randomUUID } from "node:crypto";
import { GoatError } from "../errors.js";
import { chainTo, chooseLeaf, indexEntries } from "./branch.js";
import type { HeaderEntry, SessionEntry } from "./types.js";

/** Options of `forkEntries`. */
export interface ForkOptions {
  /** Copy the branch ending at this entry instead of the latest. */
  upTo?: string;
  /** Time of the fork (for tests); defaults to now. */
  now?: Date;
}

/**
 * Returns the entries of the new session: a header (with `forkedFrom`) followed by the active branch,
 * re-keyed. Throws when the entries have no header (the cwd would be unknown).
 */
export function forkEntries(
  entries: SessionEntry[],
  newSessionId: string,
  options: ForkOptions = {},
): SessionEntry[] {
  const index = indexEntries(entries);
  const source = index.header;
  if (source === undefined) {
    throw new GoatError("Cannot fork a session without its header entry.", { code: "invalid_entry" });
  }
  const leaf = chooseLeaf(index, source.sessionId, options.upTo);
  const now = (options.now ?? new Date()).toISOString();
  const header: HeaderEntry = {
    ...source,
    uuid: randomUUID(),
    parentUuid: null,
    timestamp: now,
    sessionId: newSessionId,
    createdAt: now,
    forkedFrom: { sessionId: source.sessionId, uuid: leaf.uuid },
  };
  const branch = chainTo(index, leaf, false).filter((e) => e.type !== "header");
  const renamed = new Map<string, string>(branch.map((e) => [e.uuid, randomUUID()]));
  const rename = (uuid: string) => renamed.get(uuid) ?? uuid;
  const copies = branch.map((entry): SessionEntry => {
    // A parent outside the branch (the header, or one a partial load left out) becomes the new header.
    const parent = entry.parentUuid !== null ? renamed.get(entry.parentUuid) : undefined;
    const copy = {
      ...entry,
      uuid: rename(entry.uuid),
      parentUuid: parent ?? header.uuid,
      sessionId: newSessionId,
    };
    if (copy.type === "compact_boundary") copy.kept_uuids = copy.kept_uuids.map(rename);
    if ((copy.type === "user" || copy.type === "assistant") && copy.copy_of !== undefined) {
      copy.copy_of = rename(copy.copy_of);
    }
    return copy;
  });
  return [header, ...copies];
}

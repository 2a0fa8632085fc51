/**
 * The active branch of a session: the chain of entries from a leaf back through `parentUuid`.
 * Resume, fork and the transcript all read a session this way, so a branch abandoned by a resume
 * at an earlier point never leaks into the conversation.
 */
import { InvalidOptionError, SessionNotFoundError } from "../errors.js";
import type { HeaderEntry, SessionEntry } from "./types.js";

/** Entries by uuid, plus the header and the latest non-header entry in write order. */
export interface EntryIndex {
  byUuid: Map<string, SessionEntry>;
  header?: HeaderEntry;
  latest?: SessionEntry;
}

/** Indexes entries in one pass. */
export function indexEntries(entries: SessionEntry[]): EntryIndex {
  const index: EntryIndex = { byUuid: new Map() };
  for (const entry of entries) {
    index.byUuid.set(entry.uuid, entry);
    if (entry.type === "header") index.header ??= entry;
    else index.latest = entry;
  }
  return index;
}

/** The entry to continue from: `at` when given (throws if unknown), else the latest one. */
export function chooseLeaf(index: EntryIndex, sessionId: string, at?: string): SessionEntry {
  if (at !== undefined) {
    const chosen = index.byUuid.get(at);
    if (chosen === undefined) {
      throw new InvalidOptionError(
        "resumeSessionAt",
        `Session ${sessionId} has no entry ${at} to resume at.`,
      );
    }
    return chosen;
  }
  const leaf = index.latest ?? index.header;
  if (leaf === undefined) throw new SessionNotFoundError(sessionId, `Session ${sessionId} has no entries.`);
  return leaf;
}

/**
 * The chain ending at `leaf`, oldest first. With `stopAtBoundary` it starts at the nearest compaction
 * boundary (what the model sees); otherwise it runs to the root or to the first missing parent.
 */
export function chainTo(index: EntryIndex, leaf: SessionEntry, stopAtBoundary: boolean): SessionEntry[] {
  const chain: SessionEntry[] = [];
  const seen = new Set<string>();
  let current: SessionEntry | undefined = leaf;
  // `seen` guards against a hand-edited file whose parents form a cycle.
  while (current !== undefined && !seen.has(current.uuid)) {
    seen.add(current.uuid);
    chain.push(current);
    if (stopAtBoundary && current.type === "compact_boundary") break;
    current = current.parentUuid === null ? undefined : index.byUuid.get(current.parentUuid);
  }
  return chain.reverse();
}

/**
 * The chain `chainTo(index, latest, true)` gives, found without an index when the entries already are
 * that chain in write order: each entry's parent is the one written before it, back to the last
 * compaction boundary or to the header. That is the usual file (a resume at an earlier entry is what
 * branches one), and skipping the index saves hashing every uuid of a long session. Undefined when
 * the entries do not have that shape; callers then use the index.
 */
export function linearChain(entries: SessionEntry[]): SessionEntry[] | undefined {
  let i = entries.length - 1;
  if (i < 0 || entries[i].type === "header") return undefined;
  for (; i > 0; i--) {
    const entry = entries[i];
    if (entry.type === "compact_boundary") return entries.slice(i);
    if (entry.parentUuid !== entries[i - 1].uuid) return undefined;
  }
  return entries[0].parentUuid === null ? entries.slice() : undefined;
}

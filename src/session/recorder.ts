/**
 * Recording a live session: gives each new entry its uuid, parent and timestamp, and appends it in
 * order, whatever store is used. Entries recorded while an append is in flight go out together in the
 * next one, so a fast producer never waits on one write per entry.
 *
 * `record` and `flush` write at once. `add` (a live session's messages) writes on the next turn of
 * the event loop instead: the loop records a tool result and then builds and sends the next request
 * in the same turn, so the write lands while the request is on the wire rather than in front of it
 * (one write off each turn's critical path). Nothing waits longer: the persist barrier before tools
 * run is a `flush`, and entries still waiting when the process exits are written by its exit hook.
 */
import { randomUUID } from "node:crypto";
import type { EntryPayload, SessionEntry, SessionStore } from "./types.js";

/** Appends a live session's entries. */
export interface SessionRecorder {
  readonly sessionId: string;
  /** The uuid of the last recorded entry (the parent of the next one), or null before any. */
  readonly lastUuid: string | null;
  /**
   * Records one entry; resolves with it once the store has it. The entry (and `lastUuid`) exist at
   * once, before the write finishes. A header entry always gets a null parent.
   */
  record(payload: EntryPayload): Promise<SessionEntry>;
  /**
   * Records one entry like `record`, without a promise of its own: for a live session that never
   * waits on one entry (it waits with `flush`, which rejects with the first failed write). Saves a
   * promise and two closures per message on the per-turn path. The write starts on the next turn of
   * the event loop, at the next `record` or `flush` if sooner, or when the process exits.
   */
  add(payload: EntryPayload): SessionEntry;
  /** Resolves when everything recorded so far is stored (rejects with the first failure). */
  flush(): Promise<void>;
}

/** Options of `createSessionRecorder`. */
export interface SessionRecorderOptions {
  store: SessionStore;
  sessionId: string;
  /** The entry to continue from (ResumeState.lastUuid); null or absent for a new session. */
  parentUuid?: string | null;
  /** Clock (for tests). */
  now?: () => Date;
}

/** Makes a full entry from a payload. */
export function makeEntry(
  payload: EntryPayload,
  sessionId: string,
  parentUuid: string | null,
  now = new Date(),
): SessionEntry {
  return entryAt(payload, sessionId, parentUuid, now.toISOString());
}

function entryAt(
  payload: EntryPayload,
  sessionId: string,
  parentUuid: string | null,
  timestamp: string,
): SessionEntry {
  // Object.assign, not `{ ...payload, uuid, … }`: on Node 20 a spread followed by more properties
  // takes V8's slow path (about 5-10 µs here, against 0.2 µs), and this runs for every message.
  return Object.assign({}, payload, {
    uuid: randomUUID(),
    parentUuid: payload.type === "header" ? null : parentUuid,
    timestamp,
    sessionId,
  }) as SessionEntry;
}

/** The current second's ISO prefix ("2026-11-27T11:09:40."), made once per second. */
let isoSecond = Number.NaN;
let isoPrefix = "";

/**
 * `new Date().toISOString()` from the current second's prefix and the milliseconds: the same string,
 * about a tenth of the cost (toISOString took 2 µs per entry in the loop's profile, two entries a turn).
 */
export function isoTimestampNow(): string {
  const ms = Date.now();
  const second = Math.floor(ms / 1000);
  if (second !== isoSecond) {
    isoSecond = second;
    isoPrefix = new Date(second * 1000).toISOString().slice(0, 20);
  }
  const milli = ms - second * 1000;
  return `${isoPrefix}${milli < 10 ? "00" : milli < 100 ? "0" : ""}${milli}Z`;
}

/** Recorders with entries waiting for their deferred write: written if the process exits first. */
const deferred = new Set<() => void>();
let exitHookInstalled = false;

function writeDeferredAtExit(): void {
  // An exit listener runs synchronously to the end: a store whose append writes synchronously (the
  // JSONL store, once its file is open) gets every waiting entry on disk here.
  for (const write of deferred) write();
  deferred.clear();
}

/** Starts recording a session into a store. */
export function createSessionRecorder(options: SessionRecorderOptions): SessionRecorder {
  const { store, sessionId } = options;
  const now = options.now;
  const timestamp = now === undefined ? isoTimestampNow : () => now().toISOString();
  let lastUuid = options.parentUuid ?? null;
  /** Entries waiting for the next write; `done` is set for those recorded with `record`. */
  let pending: Array<{ entry: SessionEntry; done?: { resolve: () => void; reject: (e: unknown) => void } }> =
    [];
  let inFlight: Promise<void> | undefined;
  let firstError: unknown;
  /** Set while `add`'s entries wait for the next turn of the event loop. */
  let scheduled: ReturnType<typeof setImmediate> | undefined;

  /** Starts writing what is pending now, unless a write is already under way (it takes them next). */
  function writeNow(): void {
    if (scheduled !== undefined) {
      clearImmediate(scheduled);
      scheduled = undefined;
      deferred.delete(writeNow);
    }
    // Only with something to write: pump() on an empty queue would finish before `inFlight` is set.
    if (inFlight === undefined && pending.length > 0) inFlight = pump();
  }

  async function pump(): Promise<void> {
    while (pending.length > 0) {
      const batch = pending;
      pending = [];
      try {
        await store.append(
          sessionId,
          batch.map((p) => p.entry),
        );
        for (const p of batch) p.done?.resolve();
      } catch (error) {
        firstError ??= error;
        for (const p of batch) p.done?.reject(error);
      }
    }
    inFlight = undefined;
  }

  return {
    sessionId,
    get lastUuid() {
      return lastUuid;
    },
    record(payload) {
      const entry = entryAt(payload, sessionId, lastUuid, timestamp());
      lastUuid = entry.uuid;
      return new Promise<SessionEntry>((resolve, reject) => {
        pending.push({ entry, done: { resolve: () => resolve(entry), reject } });
        writeNow();
      });
    },
    add(payload) {
      const entry = entryAt(payload, sessionId, lastUuid, timestamp());
      lastUuid = entry.uuid;
      pending.push({ entry });
      if (inFlight === undefined && scheduled === undefined) {
        scheduled = setImmediate(writeNow);
        deferred.add(writeNow);
        if (!exitHookInstalled) {
          exitHookInstalled = true;
          process.on("exit", writeDeferredAtExit);
        }
      }
      return entry;
    },
    async flush() {
      writeNow();
      while (inFlight !== undefined) await inFlight;
      if (firstError !== undefined) throw firstError;
    },
  };
}

/**
 * The DBOS application version of a durable worker: which build may replay which sessions.
 *
 * DBOS replays a session by calling the workflow again and matching each step to its checkpoint by
 * number and name; a build whose step sequence differs (another tool set, a tool that gained or lost
 * its "started" marker, a loop that calls the model differently) meets a session of an older build
 * as non-determinism. DBOS keeps sessions apart by application version: a worker dequeues and
 * recovers only sessions of its own version. By default DBOS hashes the source of the registered
 * workflow functions, which for Goat is a one-line wrapper, identical across releases; so the
 * version is derived here from what decides the step sequence: Goat's version and the session's tool
 * set (names, input schemas, side effects, which tools may run again). An operator who knows better
 * gives the version outright (`applicationVersion`, `goat worker --app-version`).
 */
import { createHash } from "node:crypto";
import type { Tool } from "../tools/types.js";
import { GOAT_VERSION } from "../version.js";

/** What a worker's sessions run: their tools (before the durable wrapping), and whether `Task` is one. */
export interface SessionToolSet {
  tools: readonly Tool[];
  subagents: boolean;
  idempotentTools?: readonly string[];
}

/** The application version of a worker whose sessions run `set` on Goat `goatVersion`. */
export function deriveApplicationVersion(set: SessionToolSet, goatVersion: string = GOAT_VERSION): string {
  const { tools, subagents, idempotentTools = [] } = set;
  const rerunnable = new Set(idempotentTools);
  const described = [...tools]
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    .map((tool) => ({
      name: tool.name,
      sideEffect: tool.sideEffect,
      rerunnable: rerunnable.has(tool.name),
      schema: tool.jsonSchema,
    }));
  const hash = createHash("sha256")
    .update(JSON.stringify({ goatVersion, subagents, tools: described }))
    .digest("hex")
    .slice(0, 12);
  return `goat-${goatVersion}-${hash}`;
}

/**
 * A tool whose calls start and then wait until the test lets each one end, for scheduling and
 * interrupt tests that must not depend on the clock. The order of starts and ends is logged, so one
 * assertion on the log says which calls overlapped and which waited for which.
 */
import { z } from "zod";
import { defineTool } from "../../src/tools/define-tool.js";
import type { Tool } from "../../src/tools/types.js";

/** A gated tool and the handles a test drives it with. */
export interface GatedTool {
  tool: Tool;
  /** `start <tag>` and `end <tag>`, in the order they happened. */
  log: string[];
  /** Resolves when the call with `tag` has started. */
  started(tag: string): Promise<void>;
  /** Lets the call with `tag` return `done <tag>`. */
  finish(tag: string): void;
  /** Tags of calls that started and have not returned. */
  running(): string[];
}

/**
 * `gatedTool("slow_read", "none")`: a call runs until `finish(tag)`. When its signal aborts it returns
 * at once with an "interrupted" error, unless `ignoresAbort` (a badly written tool: it returns only
 * when finished, whatever happens). Tools given the same `log` write one shared log.
 */
export function gatedTool(
  name: string,
  sideEffect: "none" | "mutating",
  options: { ignoresAbort?: boolean; log?: string[] } = {},
): GatedTool {
  const log = options.log ?? [];
  const startedCalls = new Map<string, () => void>();
  const startWaiters = new Map<string, Promise<void>>();
  const finishers = new Map<string, () => void>();
  const waitForStart = (tag: string) => {
    let promise = startWaiters.get(tag);
    if (!promise) {
      promise = new Promise<void>((resolve) => startedCalls.set(tag, resolve));
      startWaiters.set(tag, promise);
    }
    return promise;
  };
  const tool = defineTool({
    name,
    description: `Runs until the test finishes it (${sideEffect})`,
    inputSchema: z.object({ tag: z.string() }),
    sideEffect,
    execute: async ({ tag }, ctx) => {
      log.push(`start ${tag}`);
      void waitForStart(tag);
      startedCalls.get(tag)?.();
      const aborted = await new Promise<boolean>((resolve) => {
        finishers.set(tag, () => resolve(false));
        if (!options.ignoresAbort) ctx.signal.addEventListener("abort", () => resolve(true), { once: true });
      });
      finishers.delete(tag);
      log.push(`end ${tag}`);
      return aborted ? { content: `interrupted ${tag}`, isError: true } : { content: `done ${tag}` };
    },
  });
  return {
    tool,
    log,
    started: waitForStart,
    finish: (tag) => {
      const finish = finishers.get(tag);
      if (!finish) throw new Error(`the call ${tag} is not running`);
      finish();
    },
    running: () => [...finishers.keys()],
  };
}

/** Lets pending callbacks run (a few event-loop turns), so what would happen next has happened. */
export async function settle(): Promise<void> {
  for (let i = 0; i < 5; i++) await new Promise<void>((resolve) => setImmediate(resolve));
}

/**
 * A durable worker for the benchmark (built package, dist/): one `echo` tool with a side effect's
 * treatment (`mutating`: a started marker and a call step per call), optionally waiting `waitMs`.
 * Env: DATABASE_URL, ANTHROPIC_BASE_URL, WORKER_ID, WORKER_CONCURRENCY, HEARTBEAT_MS, DEAD_AFTER_MS,
 * POLL_MS (default: the worker's own).
 * Prints `ready` once it takes sessions.
 */
import { setTimeout as sleep } from "node:timers/promises";
import { z } from "zod";
import { startDurableWorker } from "../../dist/dbos/index.js";
import { defineTool } from "../../dist/index.js";

export const echoTool = defineTool({
  name: "echo",
  description: "Echoes its text",
  inputSchema: z.object({ text: z.string(), waitMs: z.number().optional() }),
  sideEffect: "mutating",
  execute: async ({ text, waitMs }, ctx) => {
    if (waitMs) await sleep(waitMs, undefined, { signal: ctx.signal }).catch(() => {});
    return { content: text };
  },
});

/** The session options the benchmark uses in and out of DBOS. */
export const benchOptions = {
  model: "anthropic/claude-bench",
  tools: [echoTool],
  allowedTools: ["echo"],
  systemPrompt: "bench",
};

if (process.env.WORKER_ID) {
  const env = process.env;
  await startDurableWorker({
    databaseUrl: env.DATABASE_URL,
    executorId: env.WORKER_ID,
    workerConcurrency: Number(env.WORKER_CONCURRENCY ?? 16),
    ...(env.POLL_MS ? { pollingIntervalMs: Number(env.POLL_MS) } : {}), // else the worker's default
    heartbeatMs: Number(env.HEARTBEAT_MS ?? 1000),
    deadAfterMs: Number(env.DEAD_AFTER_MS ?? 10_000),
    options: benchOptions,
  });
  process.stdout.write("ready\n");
}

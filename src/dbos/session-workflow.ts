/**
 * One durable session: the DBOS workflow that runs `query()` with its model calls and tool calls as
 * steps. The loop itself knows nothing of DBOS; this function only fills `query()`'s extension points:
 * - `provider`: every provider wrapped so each call is a step (`durable-model.ts`);
 * - `tools`: every tool wrapped so each call is a step run at most once (`durable-tools.ts`);
 * - `sessionStore`: the PostgreSQL store seen through the replay-safe view (`replay-store.ts`);
 * - `getSteeringMessages` / `getFollowUpMessages`: `DBOS.recv` on the workflow's topics, so messages
 *   sent from anywhere reach the running session, and a replay receives the same ones;
 * - every SDK message goes to the message log (`message-log.ts`) for followers elsewhere.
 *
 * Steps are numbered in the order they start, and a replay must start them in the same order. So the
 * loop runs with `orderedToolStarts`: calls of side-effect-free tools run together as parallel steps,
 * each taking its step number when it begins, and they begin in the model's order (whatever their hooks'
 * timing); a call with any side effect (two steps) runs alone. A Task call starts a child workflow
 * (`durable-task.ts`) and counts as side-effect free: its two numbers are taken as it begins.
 */
import { randomUUID } from "node:crypto";
import { DBOS } from "@dbos-inc/dbos-sdk";
import type pg from "pg";
import type { ProviderSpec } from "../llm/resolve.js";
import type { AgentMessage } from "../loop/events.js";
import type { QueryOptions } from "../sdk/options.js";
import { query } from "../sdk/query.js";
import type { PermissionModeName, SDKResultMessage } from "../sdk/sdk-messages.js";
import { resolveTools } from "../tools/builtin.js";
import type { Tool } from "../tools/types.js";
import { startSessionMcp } from "./durable-mcp.js";
import { durableProviders } from "./durable-model.js";
import { SpillShelf } from "./durable-spill.js";
import { durableTaskTool, type SubagentRunner } from "./durable-task.js";
import { durableTools } from "./durable-tools.js";
import { EngineGuard } from "./engine-guard.js";
import { createMessageLogWriter } from "./message-log.js";
import { DEFAULT_STEP_PAYLOAD_BYTES, postgresOutputStore, readStoredOutput } from "./payload-limit.js";
import type { PostgresSessionStore } from "./postgres-store.js";
import { nameUuid, replaySafeStore } from "./replay-store.js";

/** Topics of `DBOS.send` a durable session listens on. */
export const FOLLOW_UP_TOPIC = "goat.follow-up";
export const STEER_TOPIC = "goat.steer";

/** The per-session options a submitter may set (plain data; the worker's options supply the rest). */
export interface DurableSessionOptions {
  model?: string;
  maxTurns?: number;
  maxBudgetUsd?: number;
  maxTokens?: number;
  temperature?: number;
  maxThinkingTokens?: number;
  systemPrompt?: string;
  cwd?: string;
  permissionMode?: PermissionModeName;
  allowedTools?: string[];
  disallowedTools?: string[];
  /** Names of the worker's tools this session may use (default: all); a subagent's session gets its agent's. */
  tools?: string[];
}

/** What is submitted: one prompt to run as a durable session (plain JSON, stored by DBOS). */
export interface DurableSessionRequest {
  prompt: string;
  /** Id of a new session (default: the workflow id). */
  sessionId?: string;
  /** Continue this session's transcript (from the PostgreSQL store). */
  resume?: string;
  /** With `resume`: copy the history into a new session instead. */
  forkSession?: boolean;
  options?: DurableSessionOptions;
  /**
   * How long the session waits for a follow-up message after a run ends before it finishes
   * (seconds, default 0: it finishes at once). A durable wait: it survives a worker's death.
   */
  followUpWaitSeconds?: number;
}

/** What the workflow returns (DBOS keeps it as the workflow's result). */
export interface DurableSessionOutcome {
  sessionId: string;
  /** The last run's result message; absent when the session ended without one (an early error). */
  result?: SDKResultMessage;
}

/** What the workflow needs from its worker. */
export interface SessionWorkflowContext {
  store: PostgresSessionStore;
  pool: pg.Pool;
  schema: string;
  /** The worker's base options for a request (tools, providers, hooks, ...). */
  baseOptions: (request: DurableSessionRequest) => QueryOptions;
  idempotentTools?: readonly string[];
  /** Bytes a tool step may record (default `DEFAULT_STEP_PAYLOAD_BYTES`). */
  payloadLimitBytes?: number;
  /** Called with the running session's abort, so cancellation reaches it; returns the unregister. */
  track: (workflowId: string, stop: () => void) => () => void;
  /**
   * Starts `request` as a child workflow of the running one, with id `childId` (or finds it, on a
   * replay), and waits for its outcome; `signal` stops it. Without it, subagents run in process.
   */
  runChild?: (
    childId: string,
    request: DurableSessionRequest,
    signal: AbortSignal,
  ) => Promise<DurableSessionOutcome>;
}

/** Runs one durable session; must be called as a DBOS workflow. */
export async function runSessionWorkflow(
  context: SessionWorkflowContext,
  request: DurableSessionRequest,
): Promise<DurableSessionOutcome> {
  const workflowId = DBOS.workflowID;
  if (workflowId === undefined) throw new Error("runSessionWorkflow must run as a DBOS workflow.");
  const base = context.baseOptions(request);
  const mcp = await startSessionMcp(base.mcpServers, {
    cwd: request.options?.cwd ?? base.cwd ?? process.cwd(),
    env: base.env,
    startupMs: base.mcpStartupTimeoutMs,
  });
  try {
    return await runSession(context, request, { ...base, mcpServers: undefined }, mcp?.tools ?? []);
  } finally {
    await mcp?.close();
  }
}

/** The session itself, its MCP servers up (their tools in `mcpTools`, unwrapped). */
async function runSession(
  context: SessionWorkflowContext,
  request: DurableSessionRequest,
  base: QueryOptions,
  mcpTools: Tool[],
): Promise<DurableSessionOutcome> {
  const workflowId = DBOS.workflowID as string;
  const guard = new EngineGuard();
  const tools = sessionTools(context, request, base, mcpTools, guard);
  const specs: ProviderSpec[] = base.provider ? [base.provider].flat() : [];
  const log = createMessageLogWriter(context.pool, context.schema, workflowId);
  const waitSeconds = Math.max(0, request.followUpWaitSeconds ?? 0);
  const received = (topic: string, seconds: number) => async (): Promise<AgentMessage[]> => {
    const text = await guard.recv<string>(topic, seconds);
    return typeof text === "string" ? [{ role: "user", content: text }] : [];
  };

  const durable = durableProviders(specs, guard, base.getApiKey);
  const q = query({
    prompt: request.prompt,
    options: {
      ...base,
      ...request.options,
      // Deterministic, also for a fork (whose new id would otherwise be random on every replay).
      sessionId: request.sessionId ?? workflowId,
      resume: request.resume,
      forkSession: request.forkSession,
      continue: false,
      persistSession: true,
      sessionStore: replaySafeStore(context.store, workflowId),
      provider: durable.providers,
      tools: tools.list,
      // The durable Task tool takes the place of the runtime's (which `agents` would add).
      ...(tools.ownTask ? { agents: undefined } : {}),
      orderedToolStarts: true,
      getSteeringMessages: received(STEER_TOPIC, 0),
      getFollowUpMessages: received(FOLLOW_UP_TOPIC, waitSeconds),
    },
  });
  const stop = () => {
    void q.interrupt().then(() => q.close());
  };
  guard.onFailure(stop);
  const untrack = context.track(workflowId, stop);
  let result: SDKResultMessage | undefined;
  try {
    for await (const message of q) {
      log.push(message);
      if (message.type === "result") result = message;
    }
  } finally {
    untrack();
    durable.close();
    await log.flush();
  }
  // The engine's error ends the workflow as DBOS's own (ERROR, or the owner's outcome), not as a
  // session that merely looked interrupted.
  if (guard.failure) throw guard.failure.error;
  return { sessionId: q.sessionId, ...(result ? { result } : {}) };
}

/**
 * The session's tools as `query()` gets them: the worker's and the MCP servers' (those the request
 * allows) wrapped as steps, and the Task tool: a durable one starting child workflows when the worker
 * can (`ownTask`), else the runtime's.
 */
function sessionTools(
  context: SessionWorkflowContext,
  request: DurableSessionRequest,
  base: QueryOptions,
  mcpTools: Tool[],
  guard: EngineGuard,
): { list: Array<Tool | string>; ownTask: boolean } {
  const workflowId = DBOS.workflowID as string;
  const only = request.options?.tools;
  const allowed = (name: string) => only === undefined || only.includes(name);
  const { tools: plainTools, wantsTask } = sessionToolSet(base);
  const own = new Set(Array.isArray(base.tools) ? base.tools.filter((t) => typeof t !== "string") : []);
  const tools = durableTools(
    [...plainTools, ...mcpTools].filter((t) => allowed(t.name)),
    {
      builtIn: new Set(plainTools.filter((t) => !own.has(t))),
      executionNonce: randomUUID(),
      idempotentTools: context.idempotentTools,
      guard,
      payloadLimitBytes: context.payloadLimitBytes ?? DEFAULT_STEP_PAYLOAD_BYTES,
      storeOutput: postgresOutputStore(context.pool, context.schema, workflowId),
      spills: new SpillShelf(postgresOutputStore(context.pool, context.schema, workflowId), (id) =>
        readStoredOutput(context.pool, context.schema, id),
      ),
    },
  );
  if (!wantsTask || !allowed("Task")) return { list: tools, ownTask: false };
  if (!context.runChild) return { list: [...tools, "Task"], ownTask: false };
  const task = durableTaskTool(
    base.agents ?? {},
    workflowId,
    subagentRunner(context.runChild, request, guard),
  );
  return { list: [...tools, task], ownTask: true };
}

/**
 * Runs a Task call's subagent as a child session: the parent's working directory and permission
 * settings, the agent's prompt, model, turn limit and tools.
 */
function subagentRunner(
  runChild: NonNullable<SessionWorkflowContext["runChild"]>,
  parent: DurableSessionRequest,
  guard: EngineGuard,
): SubagentRunner {
  return async (run, signal) => {
    const inherited = parent.options ?? {};
    // The agent's tools among those of the parent's session.
    const tools = run.tools ? run.tools.filter((t) => inherited.tools?.includes(t) ?? true) : inherited.tools;
    const child: DurableSessionRequest = {
      prompt: run.prompt,
      // A subagent transcript of the parent's session (`<session>.agent-<id>`), not listed as a session.
      sessionId: `${run.parentSessionId}.agent-${nameUuid(run.childId)}`,
      options: {
        ...(inherited.cwd !== undefined ? { cwd: inherited.cwd } : {}),
        ...(inherited.permissionMode !== undefined ? { permissionMode: inherited.permissionMode } : {}),
        ...(inherited.allowedTools !== undefined ? { allowedTools: inherited.allowedTools } : {}),
        ...((run.model ?? inherited.model) ? { model: run.model ?? inherited.model } : {}),
        systemPrompt: run.systemPrompt,
        ...(run.maxTurns !== undefined ? { maxTurns: run.maxTurns } : {}),
        ...(tools ? { tools } : {}),
        disallowedTools: [...(inherited.disallowedTools ?? []), ...(run.disallowedTools ?? [])],
      },
    };
    // The start and the wait are DBOS's own operations in the parent: their throws are the engine's.
    const outcome = await guard.run(() => runChild(run.childId, child, signal));
    const result = outcome.result;
    if (result?.subtype === "success" && !result.is_error) return { ok: true, text: result.result };
    const reason = result === undefined ? "it ended without a result" : result.subtype;
    const errors = result && "errors" in result ? result.errors.join("; ") : "";
    return { ok: false, text: errors ? `${reason}: ${errors}` : reason };
  };
}

/**
 * The tools a session of these options runs (the `Task` tool apart: it is not wrapped, its subagent's
 * calls are). Also what the worker's application version is derived from.
 */
export function sessionToolSet(base: QueryOptions): { tools: Tool[]; wantsTask: boolean } {
  const requested = Array.isArray(base.tools) ? base.tools : undefined;
  const wantsTask = requested === undefined || requested.includes("Task") || base.agents !== undefined;
  return { tools: resolveTools(requested?.filter((t) => t !== "Task")), wantsTask };
}

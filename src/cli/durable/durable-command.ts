import type { SDKMessage } from "../../index.js";
import { UsageError } from "../args.js";
import { formatToolResult, type ToolCallInfo } from "../render/tool-output.js";
import { toolCallLabel, toolCallLine } from "../render/tool-summary.js";
import { colorOutput, createStyle } from "../style.js";
import { jsonText, terminalSafe, withoutUiMarks } from "../terminal/safe-text.js";
import { keepWasmOnBaselineTier } from "../wasm-tier.js";
import { count, type DbosModule, loadDbos, one, parse, withClient } from "./durable-shared.js";

/** Runs `goat <command> …`; returns the exit status. */
export async function runDurableCommand(argv: string[], env: NodeJS.ProcessEnv): Promise<number> {
  const [command, ...rest] = argv;
  const databaseUrl = env.DATABASE_URL ?? env.GOAT_DATABASE_URL;
  if (rest.includes("--help") || rest.includes("-h")) {
    process.stdout.write(USAGE);
    return 0;
  }
  if (!databaseUrl)
    throw new UsageError(`goat ${command} needs DATABASE_URL (postgres://user@host:port/database).`);
  const dbos = await loadDbos();
  switch (command) {
    case "durable":
      return (await import("./durable-admin-command.js")).runDurableAdmin(dbos, rest, databaseUrl, env);
    case "worker":
      return runWorker(dbos, rest, databaseUrl, env);
    case "submit":
      return runSubmit(dbos, rest, databaseUrl, env);
    case "follow":
      return withClient(dbos, databaseUrl, env, async (client) => {
        const { values, positionals } = parse(rest, { "output-format": { type: "string" } });
        const workflowId = one(positionals, "a workflow id");
        return follow(client, workflowId, outputFormat(values["output-format"]));
      });
    case "send":
      return withClient(dbos, databaseUrl, env, async (client) => {
        const { values, positionals } = parse(rest, { steer: { type: "boolean" } });
        if (positionals.length !== 2) throw new UsageError("Usage: goat send [--steer] WORKFLOW_ID TEXT");
        const [workflowId, text] = positionals;
        await (values.steer ? client.steer(workflowId, text) : client.sendFollowUp(workflowId, text));
        return 0;
      });
    case "cancel":
      return withClient(dbos, databaseUrl, env, async (client) => {
        await client.cancel(one(parse(rest, {}).positionals, "a workflow id"));
        return 0;
      });
    default:
      throw new UsageError(`Unknown command ${command}.`);
  }
}

async function runWorker(dbos: DbosModule, argv: string[], databaseUrl: string, env: NodeJS.ProcessEnv) {
  const { values } = parse(argv, {
    concurrency: { type: "string" },
    "global-concurrency": { type: "string" },
    id: { type: "string" },
    model: { type: "string" },
    "permission-mode": { type: "string" },
    allowedTools: { type: "string" },
    queue: { type: "string" },
    "app-version": { type: "string" },
    "payload-limit": { type: "string" },
    "poll-ms": { type: "string" },
    "heartbeat-ms": { type: "string" },
    "dead-after-ms": { type: "string" },
    "rate-limit": { type: "string" },
  });
  keepWasmOnBaselineTier(); // the worker's agents run Bash: see wasm-tier.ts
  const worker = await dbos.startDurableWorker({
    databaseUrl,
    executorId: values.id ?? env.GOAT_WORKER_ID,
    workerConcurrency: count(values.concurrency, "--concurrency") ?? 8,
    globalConcurrency: count(values["global-concurrency"], "--global-concurrency"),
    queueName: values.queue,
    applicationVersion: values["app-version"] ?? env.GOAT_APP_VERSION,
    payloadLimitBytes: count(values["payload-limit"], "--payload-limit"),
    pollingIntervalMs: count(values["poll-ms"], "--poll-ms"),
    heartbeatMs: count(values["heartbeat-ms"], "--heartbeat-ms"),
    deadAfterMs: count(values["dead-after-ms"], "--dead-after-ms"),
    rateLimit: rateLimit(values["rate-limit"]),
    options: {
      ...(values.model ? { model: values.model } : {}),
      ...(values["permission-mode"] ? { permissionMode: values["permission-mode"] as never } : {}),
      ...(values.allowedTools ? { allowedTools: values.allowedTools.split(/[,\s]+/).filter(Boolean) } : {}),
    },
  });
  process.stdout.write(
    `goat worker ${worker.executorId}, version ${worker.applicationVersion}: taking durable sessions (Ctrl-C to stop)\n`,
  );
  await new Promise<void>((resolve) => {
    process.once("SIGINT", () => resolve());
    process.once("SIGTERM", () => resolve());
  });
  await worker.stop();
  return 0;
}

async function runSubmit(dbos: DbosModule, argv: string[], databaseUrl: string, env: NodeJS.ProcessEnv) {
  const { values, positionals } = parse(argv, {
    model: { type: "string" },
    "max-turns": { type: "string" },
    cwd: { type: "string" },
    resume: { type: "string" },
    "fork-session": { type: "boolean" },
    "session-id": { type: "string" },
    detach: { type: "boolean" },
    "output-format": { type: "string" },
    priority: { type: "string" },
    deadline: { type: "string" },
    "dedup-id": { type: "string" },
    "app-version": { type: "string" },
  });
  const prompt = positionals.join(" ").trim();
  if (prompt === "") throw new UsageError("Usage: goat submit [options] PROMPT");
  const format = outputFormat(values["output-format"]);
  const deadline = values.deadline === undefined ? undefined : dbos.parseAge(values.deadline);
  if (values.deadline !== undefined && deadline === undefined)
    throw new UsageError(
      `--deadline expects an age such as 90s, 30m or 2h, got ${JSON.stringify(values.deadline)}.`,
    );
  const submitOptions = {
    ...(values.priority !== undefined ? { priority: whole(values.priority, "--priority") } : {}),
    ...(deadline !== undefined ? { deadlineMs: deadline } : {}),
    ...(values["dedup-id"] ? { deduplicationId: values["dedup-id"] } : {}),
    ...(values["app-version"] ? { applicationVersion: values["app-version"] } : {}),
  };
  return withClient(dbos, databaseUrl, env, async (client) => {
    const handle = await client.submit(
      {
        prompt,
        ...(values["session-id"] ? { sessionId: values["session-id"] } : {}),
        ...(values.resume ? { resume: values.resume } : {}),
        ...(values["fork-session"] ? { forkSession: true } : {}),
        options: {
          cwd: values.cwd ?? process.cwd(),
          ...(values.model ? { model: values.model } : {}),
          ...(values["max-turns"] ? { maxTurns: count(values["max-turns"], "--max-turns") } : {}),
        },
      },
      submitOptions,
    );
    if (values.detach) {
      process.stdout.write(
        format === "stream-json"
          ? `${JSON.stringify(handle)}\n`
          : `${handle.workflowId} (session ${handle.sessionId})\n`,
      );
      return 0;
    }
    if (format === "text")
      process.stderr.write(`goat: session ${handle.sessionId}, workflow ${handle.workflowId}\n`);
    return follow(client, handle.workflowId, format);
  });
}

/** Prints a session's messages until it ends; the exit status says whether it succeeded. */
async function follow(
  client: Awaited<ReturnType<DbosModule["createDurableClient"]>>,
  workflowId: string,
  format: "text" | "stream-json",
): Promise<number> {
  let last: SDKMessage | undefined;
  const writeText = createFollowView(process.cwd());
  const stop = new AbortController();
  const onSigint = () => stop.abort();
  process.once("SIGINT", onSigint);
  try {
    for await (const message of client.follow(workflowId, { signal: stop.signal })) {
      last = message;
      if (format === "stream-json") process.stdout.write(`${jsonText(message)}\n`);
      else writeText(message);
    }
  } finally {
    process.off("SIGINT", onSigint);
  }
  if (stop.signal.aborted) return 130;
  const status = await client.status(workflowId);
  if (last?.type === "result") reportDenials(last);
  if (status !== "SUCCESS") {
    const error = (await client.show(workflowId))?.error;
    process.stderr.write(`goat: the session ended ${status}${error ? `: ${terminalSafe(error)}` : ""}\n`);
  }
  return last?.type === "result" && last.subtype === "success" && status === "SUCCESS" ? 0 : 1;
}

/**
 * The readable view: the model's text, each tool call and its outcome drawn as the interactive mode
 * draws them (`tool-summary.ts`, `tool-output.ts`: `● Read(a.ts)`, `⎿ Read 3 lines`), errors on
 * stderr. A view for a person, so escaped as the interactive mode's (`terminal/safe-text.ts`).
 */
function createFollowView(cwd: string): (message: SDKMessage) => void {
  const style = createStyle(colorOutput(process.stdout, process.env));
  const calls = new Map<string, ToolCallInfo>();
  return (message) => {
    if (message.type === "assistant") {
      for (const block of message.message.content) {
        if (block.type === "text" && block.text.trim() !== "")
          process.stdout.write(`${withoutUiMarks(terminalSafe(block.text))}\n`);
        else if (block.type === "tool_use") {
          const input = (block.input ?? {}) as Record<string, unknown>;
          calls.set(block.id, { name: block.name, input, label: toolCallLabel(block.name, input, cwd) });
          process.stdout.write(toolCallLine(block.name, input, cwd, style));
        }
      }
    } else if (message.type === "user" && Array.isArray(message.message.content)) {
      for (const block of message.message.content) {
        if (block.type !== "tool_result") continue;
        const result = formatToolResult(
          calls.get(block.tool_use_id),
          block.content,
          block.is_error === true,
          style,
          cwd,
        );
        process.stdout.write(result(process.stdout.columns || 100));
        calls.delete(block.tool_use_id);
      }
    } else if (message.type === "result" && message.subtype !== "success") {
      const errors = "errors" in message ? `: ${terminalSafe(message.errors.join("; "))}` : "";
      process.stderr.write(`goat: ${message.subtype}${errors}\n`);
    }
  };
}

/** The tool calls the session's permissions refused, on stderr: a submitter otherwise sees only an exit status. */
function reportDenials(result: Extract<SDKMessage, { type: "result" }>): void {
  const denials = result.permission_denials ?? [];
  if (denials.length === 0) return;
  const names = denials.map((d) => terminalSafe(d.tool_name)).join(", ");
  process.stderr.write(`goat: ${denials.length} tool call(s) denied: ${names}\n`);
}

function whole(value: string, flag: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0)
    throw new UsageError(`${flag} expects a whole number (0 or more), got ${JSON.stringify(value)}.`);
  return n;
}

/** `--rate-limit N/SECONDS`: at most N sessions started per SECONDS across all workers. */
function rateLimit(value: string | undefined): { limit: number; periodSeconds: number } | undefined {
  if (value === undefined) return undefined;
  const match = /^(\d+)\/(\d+(?:\.\d+)?)$/.exec(value);
  if (!match || Number(match[1]) < 1 || Number(match[2]) <= 0)
    throw new UsageError(`--rate-limit expects N/SECONDS (e.g. 10/60), got ${JSON.stringify(value)}.`);
  return { limit: Number(match[1]), periodSeconds: Number(match[2]) };
}

function outputFormat(value: string | undefined): "text" | "stream-json" {
  if (value === undefined || value === "text") return "text";
  if (value === "stream-json") return value;
  throw new UsageError(`--output-format expects text or stream-json, got ${JSON.stringify(value)}.`);
}

const USAGE = `Durable sessions (DBOS on PostgreSQL; needs DATABASE_URL and npm install @dbos-inc/dbos-sdk pg):
  goat worker [--concurrency N] [--global-concurrency N] [--id ID] [--model M]
              [--permission-mode MODE] [--allowedTools RULES] [--app-version V]
              [--payload-limit BYTES] [--poll-ms N] [--heartbeat-ms N] [--dead-after-ms N]
              [--rate-limit N/SECONDS]
  goat submit [--model M] [--max-turns N] [--cwd DIR] [--resume ID [--fork-session]]
              [--priority N] [--deadline AGE] [--dedup-id ID] [--app-version V]
              [--detach] [--output-format text|stream-json] PROMPT
  goat follow [--output-format text|stream-json] WORKFLOW_ID
  goat send [--steer] WORKFLOW_ID TEXT
  goat cancel WORKFLOW_ID
  goat durable list [--status S] [--version V] [--limit N] [--json]
  goat durable show [--json] WORKFLOW_ID
  goat durable resume [--app-version V] WORKFLOW_ID
  goat durable fork --step N [--app-version V] WORKFLOW_ID
  goat durable versions
  goat durable move --from V --to V [WORKFLOW_ID...]
  goat durable prune --older-than AGE            (AGE: 90s, 30m, 12h, 7d)
  goat durable output OUTPUT_ID                  a tool output cut for the model, whole
Client commands wait GOAT_DATABASE_TIMEOUT_MS (default 10000) for PostgreSQL, then fail.
`;

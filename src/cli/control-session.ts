/**
 * `--input-format stream-json` as Claude Code speaks it to the Agent SDK: stdin carries user messages
 * and control lines, stdout carries the SDK messages and control lines. This file reads stdin, sends
 * user messages to the query's prompt, runs control requests through `control-handlers.ts`, and
 * applies the host's `initialize` (hooks, system prompt, agents) to the options.
 * Why the first line is awaited: the SDK sends `initialize` before any user message, and its hooks
 * must be in the options `query()` is created with.
 */
import { createInterface } from "node:readline";
import type { Readable, Writable } from "node:stream";
import type { QueryOptions } from "../agent/options.js";
import type { Query, SDKUserMessageInput } from "../agent/query.js";
import { defaultModels } from "../llm/models.js";
import { parseAgentsFlag } from "./agents.js";
import type { CliArgs } from "./args.js";
import { hostCanUseTool, hostHooks } from "./control-callbacks.js";
import { createControlHandler } from "./control-handlers.js";
import {
  type ControlRequestBody,
  classifyInputLine,
  createControlChannel,
  isRecord,
} from "./control-protocol.js";
import { createInputQueue } from "./input-queue.js";

/** The prompt and options of a stream-json session, and its link to the query. */
export interface ControlSession {
  prompt: AsyncIterable<SDKUserMessageInput>;
  /** The CLI's options plus what the host's `initialize` and `--permission-prompt-tool stdio` add. */
  options: QueryOptions;
  /** Starts answering control requests that need the query (those that came earlier wait for it). */
  attach(q: Query): void;
  /** Stops reading stdin; requests still waiting for the host fail. */
  close(): void;
}

/** Starts reading stdin; resolves once the first line (or the end of stdin) has been handled. */
export async function openControlSession(
  args: CliArgs,
  baseOptions: QueryOptions,
  io: { stdin: Readable; stdout: Writable; stderr: Writable },
): Promise<ControlSession> {
  const options: QueryOptions = { ...baseOptions };
  const warn = (text: string) => io.stderr.write(`goat: ${text}\n`);
  const write = (line: object) => io.stdout.write(`${JSON.stringify(line)}\n`);
  let attach!: (q: Query) => void;
  const queryReady = new Promise<Query>((resolve) => {
    attach = resolve;
  });
  let initialized = false;
  let started = false;

  const channel = createControlChannel(
    write,
    createControlHandler({
      query: () => queryReady,
      initialize(request) {
        if (initialized) throw new Error("Already initialized");
        if (started) warnLateInitialize(request, warn);
        else applyInitialize(request, options, channel, warn);
        initialized = true;
        return initializeResponse(options);
      },
    }),
    warn,
  );
  if (args.permissionPromptTool === "stdio") options.canUseTool = hostCanUseTool(channel);

  const inputs = createInputQueue();
  if (args.prompt !== undefined) {
    inputs.push(args.prompt);
    // The prompt is already there: nothing to wait for, and a later initialize can only be answered.
    started = true;
  }
  let firstLine!: () => void;
  const firstLineHandled = new Promise<void>((resolve) => {
    firstLine = resolve;
  });
  const lines = createInterface({ input: io.stdin, crlfDelay: Number.POSITIVE_INFINITY });
  let n = 0;
  lines.on("line", (text) => {
    n++;
    if (text.trim() === "") return;
    const line = classifyInputLine(text);
    switch (line.kind) {
      case "user":
        inputs.pushMessage(line.message);
        break;
      case "control_request":
        void channel.handleRequest(line.line);
        break;
      case "control_response":
        channel.handleResponse(line.line);
        break;
      case "cancel":
        channel.cancel(line.requestId);
        break;
      case "keep_alive":
        break;
      case "invalid":
        warn(`stdin line ${n} skipped: ${line.error}`);
        break;
    }
    firstLine();
  });
  lines.on("close", () => {
    inputs.close();
    channel.closeInput("stdin closed before the host answered");
    firstLine();
  });
  if (!started) await firstLineHandled;
  started = true;

  return {
    prompt: inputs,
    options,
    attach,
    close() {
      lines.close();
      inputs.close();
      channel.closeInput("the session ended");
    },
  };
}

/** Applies the host's `initialize` fields that shape the session: hooks, system prompt, agents. */
function applyInitialize(
  request: ControlRequestBody,
  options: QueryOptions,
  channel: Parameters<typeof hostHooks>[0],
  warn: (text: string) => void,
): void {
  // Check everything before changing anything: an error answer must leave the options as they were.
  const agents = isRecord(request.agents) ? parseAgentsFlag(JSON.stringify(request.agents)) : undefined;
  if (isRecord(request.hooks)) options.hooks = hostHooks(channel, request.hooks, options.hooks, warn);
  if (agents) options.agents = { ...options.agents, ...agents };
  const prompt = systemPromptText(request.systemPrompt);
  // The SDK sends [""] when its caller chose no prompt; an empty prompt would leave the model without
  // the tool guidance, so only a non-empty one replaces Goat's.
  if (prompt) options.systemPrompt = prompt;
  const append = typeof request.appendSystemPrompt === "string" ? request.appendSystemPrompt : "";
  if (append) {
    const current = options.systemPrompt;
    if (typeof current === "string") options.systemPrompt = `${current}\n\n${append}`;
    else if (current)
      options.systemPrompt = { ...current, append: [current.append, append].filter(Boolean).join("\n\n") };
    else options.systemPrompt = { type: "preset", preset: "goat", append };
  }
  if (request.jsonSchema !== undefined)
    warn("initialize: jsonSchema (structured output) is not supported; ignored");
  if (Array.isArray(request.sdkMcpServers) && request.sdkMcpServers.length > 0) {
    warn(
      `initialize: in-process SDK MCP servers (${request.sdkMcpServers.join(", ")}) are not supported; ignored`,
    );
  }
}

function systemPromptText(value: unknown): string | undefined {
  if (typeof value === "string") return value.trim() === "" ? undefined : value;
  if (Array.isArray(value) && value.every((v) => typeof v === "string")) {
    const text = value.filter((v) => v.trim() !== "").join("\n\n");
    return text === "" ? undefined : text;
  }
  return undefined;
}

function warnLateInitialize(request: ControlRequestBody, warn: (text: string) => void): void {
  const late = ["hooks", "systemPrompt", "appendSystemPrompt", "agents"].filter((k) => {
    const v = request[k];
    return isRecord(v) ? Object.keys(v).length > 0 : Array.isArray(v) ? v.some(Boolean) : Boolean(v);
  });
  if (late.length > 0) {
    warn(
      `initialize came after the session started (a prompt was given on the command line): ${late.join(", ")} not applied`,
    );
  }
}

/** Claude Code's initialize answer, filled with what Goat knows. */
function initializeResponse(options: QueryOptions): Record<string, unknown> {
  return {
    commands: [],
    agents: Object.entries(options.agents ?? {}).map(([name, a]) => ({
      name,
      description: a.description,
      ...(a.model !== undefined ? { model: a.model } : {}),
    })),
    output_style: "default",
    available_output_styles: ["default"],
    models: defaultModels.map((m) => ({
      value: `${m.provider}/${m.id}`,
      displayName: m.name ?? m.id,
      description: `${m.provider}, ${m.contextWindow.toLocaleString("en-US")}-token context`,
    })),
    account: {},
    pid: process.pid,
  };
}

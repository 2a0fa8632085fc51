/**
 * `--input-format stream-json` as Claude Code speaks it to the Agent SDK: stdin carries user messages
 * and control lines, stdout carries the SDK messages and control lines. This file reads stdin, sends
 * user messages to the query's prompt, runs control requests through `control-handlers.ts`, and
 * applies the host's `initialize` (`control-initialize.ts`) to the options.
 * Why the first line is awaited: the SDK sends `initialize` before any user message, and its hooks and
 * in-process MCP servers must be in the options `query()` is created with.
 */
import { createInterface } from "node:readline";
import type { Readable, Writable } from "node:stream";
import type { Query, SDKMessage, SDKUserMessageInput } from "../../index.js";
import { CLAUDE_CODE_PROTOCOL_VERSION } from "../../index.js";
import type { CliArgs } from "../args.js";
import { createInputQueue } from "../input-queue.js";
import type { CliQueryOptions } from "../sdk-options.js";
import { jsonText } from "../terminal/safe-text.js";
import { hostCanUseTool } from "./control-callbacks.js";
import { createControlHandler } from "./control-handlers.js";
import {
  type AppliedFields,
  applyInitialize,
  initializeResponse,
  lateInitializeFields,
} from "./control-initialize.js";
import { createHostMcpServers } from "./control-mcp.js";
import { classifyInputLine, createControlChannel } from "./control-protocol.js";
import { createSessionState } from "./control-session-state.js";
import { createUsageTracker } from "./control-usage.js";
import { createUserReplay } from "./user-replay.js";

/**
 * Claude Code's protocol capabilities Goat has: `interrupt` answers with `still_queued`, and
 * `mcp_read_resource` reads a server's resource.
 */
const PROTOCOL_CAPABILITIES = ["interrupt_receipt_v1", "mcp_read_resource_v1"];

/** The prompt and options of a stream-json session, and its link to the query. */
export interface ControlSession {
  prompt: AsyncIterable<SDKUserMessageInput>;
  /** The CLI's options plus what the host's `initialize` and `--permission-prompt-tool stdio` add. */
  options: CliQueryOptions;
  /** Starts answering control requests that need the query (those that came earlier wait for it). */
  attach(q: Query): void;
  /** Whether a prompt came (argument or user line): a session without one has nothing to report. */
  hadInput(): boolean;
  /**
   * Reads one message before it is written (what `get_usage` reports; a turn's start for the session
   * state) and adds the protocol capabilities to `system/init`.
   */
  observe(message: SDKMessage): void;
  /**
   * Reads one message after it was written (the session state's `idle` follows the last result; with
   * `--replay-user-messages` the echo of a user message follows its turn's `system/init`).
   */
  written(message: SDKMessage): void;
  /** Stops reading stdin; requests still waiting for the host fail. */
  close(): void;
}

/** What the session needs besides the arguments and the options. */
export interface ControlSessionIO {
  stdin: Readable;
  stdout: Writable;
  stderr: Writable;
  /** Names of `{"type":"sdk"}` servers from `--mcp-config` (the Python SDK's in-process servers). */
  hostMcpServers?: string[];
}

/** Starts reading stdin; resolves once the first line (or the end of stdin) has been handled. */
export async function openControlSession(
  args: CliArgs,
  baseOptions: CliQueryOptions,
  io: ControlSessionIO,
): Promise<ControlSession> {
  const options: CliQueryOptions = { ...baseOptions };
  const warn = (text: string) => io.stderr.write(`goat: ${text}\n`);
  const write = (line: object) => io.stdout.write(`${jsonText(line)}\n`);
  let attach!: (q: Query) => void;
  const queryReady = new Promise<Query>((resolve) => {
    attach = resolve;
  });
  let initialized = false;
  let started = false;
  let applied: AppliedFields | undefined;

  const channel = createControlChannel(
    write,
    createControlHandler({
      query: () => queryReady,
      async initialize(request) {
        // reinitialize() after a transport gap: the same answer; the session's options stay as they are.
        if (initialized) return initializeResponse(options, applied, CLAUDE_CODE_PROTOCOL_VERSION);
        initialized = true;
        if (!started) {
          applied = await applyInitialize(request, { options, channel, hostMcp, warn });
          const hooks = request.hooks;
          const servers = request.sdkMcpServers;
          if (hooks !== null && typeof hooks === "object" && Object.keys(hooks).length > 0)
            hostCallbacks = true;
          if (Array.isArray(servers) && servers.length > 0) hostCallbacks = true;
        } else {
          const late = lateInitializeFields(request);
          if (late.length > 0) {
            warn(
              `initialize came after the session started (a prompt was given on the command line): ${late.join(", ")} not applied`,
            );
          }
        }
        return initializeResponse(options, applied, CLAUDE_CODE_PROTOCOL_VERSION);
      },
      mcpMessage: (serverName, message) => hostMcp.deliver(serverName, message),
      hostMcp: () => hostMcp,
      options: () => options,
      usage: () => usage.usage(),
      settingSources: args.settingSources,
    }),
    warn,
  );
  const hostMcp = createHostMcpServers(channel);
  const usage = createUsageTracker();
  const turns = createSessionState(write, options.env ?? process.env);
  // Whether the host answers callbacks (it then closes stdin only when idle, see control-session-state.ts).
  let hostCallbacks = (io.hostMcpServers?.length ?? 0) > 0;
  if (io.hostMcpServers && io.hostMcpServers.length > 0) {
    const servers = { ...options.mcpServers };
    for (const name of io.hostMcpServers) servers[name] = hostMcp.config(name);
    options.mcpServers = servers;
  }
  // --permission-prompts none: calls that would ask are denied, the host is never asked.
  if (args.permissionPromptTool === "stdio" && args.permissionPrompts !== "none") {
    options.canUseTool = hostCanUseTool(channel);
    hostCallbacks = true;
  }

  const inputs = createInputQueue();
  const replay = args.replayUserMessages ? createUserReplay() : undefined;
  const queueMessage = (message: SDKUserMessageInput) =>
    inputs.pushMessage(replay ? replay.received(message) : message);
  if (args.prompt !== undefined) {
    queueMessage({ type: "user", message: { role: "user", content: args.prompt } });
    turns.inputArrived();
    // The prompt is already there: nothing to wait for, and a later initialize can only be answered.
    started = true;
  }
  let firstLine!: () => void;
  const firstLineHandled = new Promise<void>((resolve) => {
    firstLine = resolve;
  });
  const lines = createInterface({ input: io.stdin, crlfDelay: Number.POSITIVE_INFINITY });
  let n = 0;
  let hadInput = args.prompt !== undefined;
  lines.on("line", (text) => {
    n++;
    if (text.trim() === "") return;
    const line = classifyInputLine(text);
    switch (line.kind) {
      case "user":
        hadInput = true;
        turns.inputArrived();
        queueMessage(line.message);
        break;
      case "control_request": {
        const answered = channel.handleRequest(line.line);
        // The options are final only once initialize has been applied (it may load the MCP parser).
        if (line.line.request.subtype === "initialize") void answered.then(firstLine);
        else firstLine();
        return;
      }
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
    // A host with callbacks that reads the session state closes stdin mid-turn only when it gave up
    // (the SDK's abort or close()): stop now, tools killed and every call answered, rather than run on
    // until the SIGTERM that follows. Otherwise stdin's end means "finish the queued turns", as in Claude Code.
    if (turns.reported && hostCallbacks && turns.busy()) void queryReady.then((q) => q.close());
  });
  if (!started) await firstLineHandled;
  started = true;

  return {
    prompt: inputs,
    options,
    attach,
    observe(message) {
      usage.observe(message);
      turns.before(message);
      // The protocol features a host may detect in system/init (Claude Code's `capabilities`).
      if (message.type === "system" && message.subtype === "init") {
        (message as { capabilities?: string[] }).capabilities = PROTOCOL_CAPABILITIES;
      }
    },
    written(message) {
      turns.after(message);
      const echo = replay?.after(message);
      if (echo) write(echo);
    },
    hadInput: () => hadInput,
    close() {
      lines.close();
      inputs.close();
      channel.closeInput("the session ended");
    },
  };
}

/**
 * The debug log: one readable line per agent event ("what is it doing and why"), for a person
 * following a run, turned on by the `debug` / `debugFile` options or `GOAT_DEBUG=1` (with
 * `GOAT_DEBUG_FILE` to write to a file). Off, it does not exist: the runtime holds `undefined` and
 * checks it once per event. On, lines go through a buffered stream, never a synchronous write per
 * event, so tracing does not slow the loop it traces.
 *
 *   12:03:04.512 turn 2 · model call
 *   12:03:05.190 turn 2 · answer anthropic/claude-sonnet-4-5 → tool_use (in 1 532, out 61 tokens, $0.0055)
 *   12:03:05.191 tool Read ← {"file_path":"/repo/src/index.ts"}
 *   12:03:05.214 tool Read → ok in 23 ms (1 204 chars)
 */
import { createWriteStream } from "node:fs";
import type { AgentEvent } from "../loop/events.js";
import { PRIVATE_FILE_MODE } from "../session/private-files.js";

/** Where the debug log goes, from the options and the environment. */
export interface DebugLogSettings {
  debug?: boolean;
  debugFile?: string;
  env: Record<string, string | undefined>;
}

/** A function that logs an event, or undefined when debugging is off. */
export type DebugLog = ((event: AgentEvent) => void) & { close(): Promise<void> };

const ARGUMENT_PREVIEW = 200;

/** Creates the log, or returns undefined when it is off. */
export function createDebugLog(settings: DebugLogSettings): DebugLog | undefined {
  const fromEnv = settings.env.GOAT_DEBUG !== undefined && !/^(0|false|)$/i.test(settings.env.GOAT_DEBUG);
  const file = settings.debugFile ?? (fromEnv ? settings.env.GOAT_DEBUG_FILE : undefined);
  if (!settings.debug && !settings.debugFile && !fromEnv) return undefined;
  // The log shows tool inputs and errors: a new file is the user's only (session/private-files.ts).
  const stream = file ? createWriteStream(file, { flags: "a", mode: PRIVATE_FILE_MODE }) : undefined;
  // A file that cannot be written ends the log, never the run.
  stream?.on("error", () => undefined);
  const write = (line: string) => {
    if (stream) stream.write(`${line}\n`);
    else process.stderr.write(`[goat] ${line}\n`);
  };
  const log = ((event: AgentEvent) => {
    const line = describe(event, "");
    if (line) write(`${clock()} ${line}`);
  }) as DebugLog;
  log.close = () =>
    new Promise<void>((resolve) => {
      if (!stream || stream.destroyed) resolve();
      else stream.end(resolve);
    });
  return log;
}

function clock(): string {
  return new Date().toISOString().slice(11, 23);
}

/** One event as a line of text; undefined for events too fine to log (stream deltas). */
function describe(event: AgentEvent, prefix: string): string | undefined {
  switch (event.type) {
    case "agent_start":
      return `${prefix}run start · session ${event.sessionId}`;
    case "agent_end":
      return `${prefix}run end · ${event.exitReason}${event.error ? ` · ${event.error}` : ""}`;
    case "turn_start":
      return `${prefix}turn ${event.step} · model call`;
    case "turn_end":
      return `${prefix}turn ${event.step} end · ${event.reason}`;
    case "message_start":
    case "message_update":
      return undefined;
    case "message_end": {
      const m = event.message;
      const u = m.usage;
      const tokens = u
        ? ` (in ${u.input_tokens + u.cache_read_input_tokens}, out ${u.output_tokens} tokens`
        : " (";
      const failure = m.error_message ? ` · ${m.error_kind ?? "error"}: ${m.error_message}` : "";
      return `${prefix}turn ${event.step} · answer ${m.model ?? "?"} → ${m.stop_reason ?? "?"}${tokens}, $${event.costUsd.toFixed(4)})${failure}`;
    }
    case "message_appended":
      return `${prefix}history + ${event.message.role}${"customType" in event.message ? ` (${event.message.customType})` : ""}`;
    case "tool_execution_start":
      return `${prefix}tool ${event.name} ← ${preview(JSON.stringify(event.input))}`;
    case "tool_execution_update":
      return undefined;
    case "tool_execution_end": {
      const size = typeof event.result.content === "string" ? event.result.content.length : undefined;
      return `${prefix}tool ${event.name} → ${event.isError ? "error" : "ok"} in ${event.durationMs} ms${size === undefined ? "" : ` (${size} chars)`}`;
    }
    case "permission_denied":
      return `${prefix}denied ${event.name}: ${event.message}`;
    case "retry":
      return `${prefix}retry ${event.attempt}/${event.maxRetries} in ${event.delayMs} ms · ${event.error.kind}: ${event.error.message}`;
    case "context_compacted":
      return `${prefix}compacted (${event.trigger}) ${event.preTokens} → ${event.postTokens} tokens`;
    case "warning":
      return `${prefix}warning: ${event.message}`;
    case "subagent_event":
      return describe(event.event, `${prefix}[${event.agentType} ${event.agentId.slice(0, 8)}] `);
  }
}

function preview(text: string): string {
  return text.length > ARGUMENT_PREVIEW ? `${text.slice(0, ARGUMENT_PREVIEW)}… (${text.length} chars)` : text;
}

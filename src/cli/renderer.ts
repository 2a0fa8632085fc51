/**
 * Renders the SDK message stream in the terminal: answer text as it streams (text deltas), each tool
 * call as `● Name(input)` with a spinner while it runs and a one-line outcome, errors of the run.
 */
import type { Writable } from "node:stream";
import type { SDKMessage } from "../agent/sdk-messages.js";
import type { Spinner } from "./spinner.js";
import type { Style } from "./style.js";
import { firstResultLine, toolCallLabel } from "./tool-summary.js";

/** Renders messages; `endLine()` makes sure the cursor is at the start of a line. */
export interface Renderer {
  handle(message: SDKMessage): void;
  endLine(): void;
  /** Writes a line of the CLI's own (slash-command output, notices). */
  note(text: string): void;
  /** The model of the latest `system/init`. */
  readonly model: string | undefined;
}

/** Creates a renderer writing to `out`. */
export function createRenderer(out: Writable, style: Style, spinner: Spinner, cwd: string): Renderer {
  let atLineStart = true;
  let streamedText = false;
  let model: string | undefined;
  let mcpWarned = false;
  const labels = new Map<string, string>();
  const running = new Set<string>();

  const write = (text: string) => {
    if (text === "") return;
    if (spinner.running) spinner.stop();
    out.write(text);
    atLineStart = text.endsWith("\n");
  };
  const line = (text: string) => {
    if (!atLineStart) write("\n");
    write(`${text}\n`);
  };
  const resumeSpinner = () => {
    const last = [...running].at(-1);
    if (last !== undefined)
      spinner.start(`${labels.get(last) ?? "tool"}${running.size > 1 ? ` (+${running.size - 1})` : ""}`);
  };

  return {
    get model() {
      return model;
    },
    endLine() {
      spinner.stop();
      if (!atLineStart) write("\n");
    },
    note: (text) => line(text),
    handle(m) {
      switch (m.type) {
        case "system":
          if (m.subtype === "init") {
            model = m.model;
            // Said once per session, so a missing tool is not a mystery; /mcp has the details.
            const failed = m.mcp_servers.filter((s) => s.status === "failed").map((s) => s.name);
            if (failed.length > 0 && !mcpWarned) {
              mcpWarned = true;
              line(
                style.yellow(
                  `! MCP server${failed.length > 1 ? "s" : ""} ${failed.join(", ")} failed to start (/mcp for details)`,
                ),
              );
            }
          } else if (m.subtype === "informational") line(style.yellow(`! ${m.content}`));
          else if (m.subtype === "api_retry") line(style.dim(retryLine(m)));
          else if (m.subtype === "compact_boundary")
            line(style.dim(`(history compacted: ${m.compact_metadata.pre_tokens} tokens before)`));
          else if (m.subtype === "permission_denied") line(`  ⎿ ${style.red("denied")}: ${m.message}`);
          return;
        case "stream_event": {
          const e = m.event as { type?: string; delta?: { type?: string; text?: string } };
          if (e.type === "content_block_delta" && e.delta?.type === "text_delta" && e.delta.text) {
            streamedText = true;
            write(e.delta.text);
          }
          return;
        }
        case "assistant":
          for (const block of m.message.content) {
            if (block.type === "text" && !streamedText && block.text) write(block.text);
            if (block.type === "tool_use") {
              const label = toolCallLabel(block.name, block.input, cwd);
              labels.set(block.id, label);
              line(`${style.cyan("●")} ${style.bold(label)}`);
            }
          }
          streamedText = false;
          return;
        case "tool_progress":
          running.add(m.tool_use_id);
          if (!labels.has(m.tool_use_id)) labels.set(m.tool_use_id, m.tool_name);
          resumeSpinner();
          return;
        case "user": {
          if (typeof m.message.content === "string") return;
          for (const block of m.message.content) {
            if (block.type !== "tool_result") continue;
            running.delete(block.tool_use_id);
            const outcome = block.is_error ? style.red("error") : style.green("ok");
            const first = firstResultLine(block.content);
            line(`  ⎿ ${outcome}${first ? `: ${first}` : ""}`);
          }
          resumeSpinner();
          return;
        }
        case "result":
          running.clear();
          spinner.stop();
          if (m.is_error) {
            const text = "errors" in m && m.errors.length > 0 ? m.errors.join("; ") : m.result || m.subtype;
            line(
              m.exit_reason === "interrupted" ? style.yellow("(interrupted)") : style.red(`error: ${text}`),
            );
          } else if (!atLineStart) write("\n");
          return;
        default:
          return;
      }
    },
  };
}

/** "retrying in 2 s (attempt 1/4): …", the same words in the interactive UI and in print mode. */
export function retryLine(m: {
  attempt: number;
  max_retries: number;
  retry_delay_ms: number;
  error: string;
}): string {
  const wait =
    m.retry_delay_ms >= 1000 ? `${Math.round(m.retry_delay_ms / 100) / 10} s` : `${m.retry_delay_ms} ms`;
  return `retrying in ${wait} (attempt ${m.attempt}/${m.max_retries}): ${m.error}`;
}

/**
 * Renders the SDK message stream in the terminal: the answer as it streams, thinking (collapsed or in
 * full, `thinking-view.ts`), each tool call as `● Name(input)` with its outcome below, retries and
 * errors, and after each turn a line with its tokens and cost. The status line (`status-line.ts`) is
 * kept in step: shown while waiting and while tools run, hidden while text streams. Answers and tool
 * outcomes are printed as blocks that render for a width, so a resize draws them again.
 */
import type { SDKMessage, SDKResultMessage } from "../index.js";
import { formatTodoChecklist } from "../tools/index.js";
import { createMarkdownStream } from "./markdown-stream.js";
import { createModelWait } from "./model-wait.js";
import { richFailed, richIfLoaded } from "./rich-loader.js";
import type { StatusLine } from "./status-line.js";
import { compact } from "./status-line.js";
import type { Style } from "./style.js";
import { terminalSafe, withoutUiMarks } from "./terminal/safe-text.js";
import type { Screen } from "./terminal/screen.js";
import { clipEnd } from "./terminal/text-width.js";
import type { Block } from "./terminal/transcript.js";
import type { ThinkingView } from "./thinking-view.js";
import { formatToolResult, type ToolCallInfo } from "./tool-output.js";
import { toolCallLabel, toolCallLine } from "./tool-summary.js";

/** Renders messages through `screen`. */
export interface Renderer {
  handle(message: SDKMessage): void;
  /** Makes sure the next output starts on a fresh line. */
  endLine(): void;
  /** Writes a line of the CLI's own (slash-command output, notices). */
  note(text: string): void;
  /** The user interrupted the turn: a denial that follows is the interruption, not a "no". */
  interrupted(): void;
  /** The model of the latest `system/init`. */
  readonly model: string | undefined;
  /** A new session started (`/clear`, `/resume`): its turns' costs count from zero. */
  sessionStarted(): void;
}

type StreamEvent = {
  type?: string;
  index?: number;
  message?: { usage?: Record<string, number> };
  content_block?: { type?: string };
  delta?: { type?: string; text?: string; thinking?: string; partial_json?: string };
  usage?: { output_tokens?: number };
};

/** Creates a renderer writing to `screen`; thinking goes through `thinking`. */
export function createRenderer(
  screen: Screen,
  style: Style,
  status: StatusLine,
  cwd: string,
  thinking: ThinkingView,
  silenceNoticeMs?: number,
): Renderer {
  // A silent model is shown as such, with how long it has said nothing.
  const wait = createModelWait(
    (seconds) => status.show(`Waiting for the model · no reply for ${seconds} s`),
    silenceNoticeMs,
  );
  let model: string | undefined;
  let mcpWarned = false;
  let confinementWarned = false;
  const calls = new Map<string, ToolCallInfo>();
  const running = new Set<string>();
  const denied = new Set<string>();
  let cancelled = false;
  // Per turn: tokens of finished calls, plus the call streaming now (estimated from its text).
  let turnIn = 0;
  let turnOut = 0;
  let callIn = 0;
  let callChars = 0;
  let callOut = 0;
  let streamedText = false;
  let streamedThinking = false;
  // The session's total at the previous result: a turn's cost is the difference. Each session's
  // total starts at zero, so a new session resets it.
  let previousCost = 0;

  // Markdown is rendered once the lazily loaded renderer is there (the interactive mode waits for it
  // before handing over answer text); until then, or if it failed to load, text shows as written.
  // The answer starts its lines where Goat's own lines do: a line of it starting with one of Goat's
  // marks (a tool call's `●`, a result's `⎿`, a question's `? Allow`) has the mark escaped.
  const renderMarkdown = (markdown: string, columns: number) => {
    const text =
      richIfLoaded()?.renderMarkdown(markdown, columns - 1, style.enabled) ??
      (richFailed() ? `${markdown.replace(/\s+$/, "")}\n` : undefined);
    return text === undefined ? undefined : withoutUiMarks(text);
  };
  /**
   * A block of markdown rendered at the screen's width (undefined while the renderer is not loaded),
   * rendered again only when the width changes.
   */
  const markdownBlock = (markdown: string, before = ""): Block | undefined => {
    let columns = screen.columns;
    const first = renderMarkdown(markdown, columns);
    if (first === undefined) return undefined;
    let text = `${before}${first}`;
    return (width) => {
      if (width !== columns) {
        columns = width;
        text = `${before}${renderMarkdown(markdown, width) ?? `${withoutUiMarks(markdown)}\n`}`;
      }
      return text;
    };
  };
  /** Prints markdown as a block; false (nothing printed) while the renderer is not loaded. */
  const printMarkdown = (markdown: string, first = true): boolean => {
    const block = markdownBlock(markdown, first ? "" : "\n");
    if (block) screen.printBlock(block);
    return block !== undefined;
  };
  const markdown = createMarkdownStream(printMarkdown, (lines) =>
    screen.setLive("preview", lines.map(withoutUiMarks)),
  );
  /** A whole markdown text (an answer that was not streamed, a plan), as written if it cannot render. */
  const printWhole = (text: string) => {
    if (!printMarkdown(text)) screen.printBlock(() => `${withoutUiMarks(text)}\n`);
  };
  const line = (text: string) => {
    screen.endLine();
    screen.print(`${text}\n`);
  };
  const updateTokens = () => status.tokens(turnIn + callIn, turnOut + (callOut || Math.round(callChars / 4)));
  const showRunning = () => {
    const ids = [...running];
    if (ids.length === 0) {
      status.show("Thinking…");
      return;
    }
    const last = calls.get(ids[ids.length - 1]);
    status.show(`${last?.label ?? "tool"}${ids.length > 1 ? ` (+${ids.length - 1} more)` : ""}`);
  };

  const startThinking = () => {
    streamedThinking = true;
    thinking.start();
    if (!thinking.expanded) status.show("Thinking…");
  };

  const onStreamEvent = (e: StreamEvent) => {
    if (e.type === "message_stop") wait.done();
    else if (wait.heard()) status.show("Thinking…");
    if (e.type === "message_start") {
      const u = e.message?.usage ?? {};
      callIn =
        (u.input_tokens ?? 0) + (u.cache_read_input_tokens ?? 0) + (u.cache_creation_input_tokens ?? 0);
      callChars = 0;
      callOut = 0;
      updateTokens();
      return;
    }
    if (e.type === "message_delta") {
      callOut = e.usage?.output_tokens ?? callOut;
      updateTokens();
      return;
    }
    if (e.type === "content_block_start") {
      const type = e.content_block?.type;
      if (type === "thinking") startThinking();
      else if (type === "redacted_thinking") {
        streamedThinking = true;
        thinking.redacted();
      }
      return;
    }
    if (e.type === "content_block_stop") {
      if (thinking.active) thinking.end();
      if (markdown.active) markdown.end();
      return;
    }
    if (e.type !== "content_block_delta" || !e.delta) return;
    const d = e.delta;
    if (d.type === "text_delta" && d.text) {
      if (thinking.active) thinking.end();
      streamedText = true;
      callChars += d.text.length;
      status.hide();
      markdown.push(terminalSafe(d.text));
    } else if (d.type === "thinking_delta" && d.thinking) {
      if (!thinking.active) startThinking();
      callChars += d.thinking.length;
      // Shown in full, the thinking streams where the answer does; collapsed, the status line stays.
      if (thinking.expanded) status.hide();
      thinking.push(terminalSafe(d.thinking));
    } else if (d.type === "input_json_delta" && d.partial_json) {
      callChars += d.partial_json.length;
      updateTokens();
    }
  };

  const onResult = (m: SDKResultMessage) => {
    wait.done();
    status.end();
    screen.endLine();
    running.clear();
    if (m.is_error) {
      if (m.exit_reason === "interrupted") line(`  ⎿ ${style.yellow("Interrupted by user")}`);
      else {
        const text = "errors" in m && m.errors.length > 0 ? m.errors.join("; ") : m.result || m.subtype;
        line(style.red(`error: ${terminalSafe(text)}`));
      }
    }
    const cost = m.total_cost_usd - previousCost;
    previousCost = m.total_cost_usd;
    const u = m.usage;
    const input = u.input_tokens + (u.cache_read_input_tokens ?? 0) + (u.cache_creation_input_tokens ?? 0);
    line(
      style.dim(
        `  ${compact(input)} in · ${compact(u.output_tokens)} out · $${cost.toFixed(4)} · ${(m.duration_ms / 1000).toFixed(1)}s`,
      ),
    );
    turnIn = turnOut = callIn = callChars = callOut = 0;
    cancelled = false;
    denied.clear();
  };

  return {
    get model() {
      return model;
    },
    endLine: () => screen.endLine(),
    note: (text) => line(text),
    interrupted() {
      cancelled = true;
      wait.done();
    },
    sessionStarted() {
      previousCost = 0;
    },
    handle(m) {
      switch (m.type) {
        case "system":
          if (m.subtype === "init") {
            model = m.model;
            wait.waiting();
            if (m.goat_confinement === "none" && !confinementWarned) {
              confinementWarned = true;
              line(style.yellow(`! No sandbox here: ${m.goat_confinement_problem ?? "unknown reason"}`));
            }
            // Said once per session, so a missing tool is not a mystery; /mcp has the details.
            const failed = m.mcp_servers
              .filter((s) => s.status === "failed")
              .map((s) => terminalSafe(s.name));
            if (failed.length > 0 && !mcpWarned) {
              mcpWarned = true;
              line(
                style.yellow(
                  `! MCP server${failed.length > 1 ? "s" : ""} ${failed.join(", ")} failed to start (/mcp for details)`,
                ),
              );
            }
          } else if (m.subtype === "informational") line(style.yellow(`! ${terminalSafe(m.content)}`));
          else if (m.subtype === "api_retry") {
            const why = retryReason(m.error_status, m.error);
            status.retry(terminalSafe(why), m.attempt, m.max_retries, m.retry_delay_ms);
            wait.waiting(m.retry_delay_ms);
            if (!screen.live) line(style.dim(retryLine({ ...m, error: terminalSafe(why) })));
          } else if (m.subtype === "compact_boundary") {
            // The one line a compaction gets, /compact or automatic.
            const { pre_tokens: before, post_tokens: after } = m.compact_metadata;
            line(
              style.dim(
                `(history compacted: ${compact(before)} tokens${after !== undefined ? ` → ${compact(after)}` : " before"})`,
              ),
            );
          } else if (m.subtype === "permission_denied") {
            denied.add(m.tool_use_id);
            // One line: the call is named above it, and the model gets the whole reason.
            if (!cancelled)
              screen.printBlock((columns) => `${clipEnd(denialLine(m.message, style), columns - 1)}\n`);
          }
          return;
        case "stream_event":
          if (m.parent_tool_use_id === null) onStreamEvent(m.event as StreamEvent);
          return;
        case "assistant": {
          if (m.parent_tool_use_id !== null) return;
          const u = m.message.usage;
          turnIn += u.input_tokens + (u.cache_read_input_tokens ?? 0) + (u.cache_creation_input_tokens ?? 0);
          turnOut += u.output_tokens;
          callIn = callChars = callOut = 0;
          updateTokens();
          if (thinking.active) thinking.end();
          if (markdown.active) {
            markdown.end();
            markdown.flush();
          }
          for (const block of m.message.content) {
            // Blocks that were not streamed (a provider that sends them whole) are shown now.
            if (block.type === "thinking" && !streamedThinking) thinking.whole(terminalSafe(block.thinking));
            if (block.type === "redacted_thinking" && !streamedThinking) thinking.redacted();
            if (block.type === "text" && !streamedText && block.text) printWhole(terminalSafe(block.text));
            if (block.type === "tool_use" && block.name === "TodoWrite") {
              // The task list as a checklist instead of a JSON label; its result line adds nothing.
              const todos = (block.input as { todos?: unknown })?.todos;
              const items = Array.isArray(todos) ? todos.filter((t) => t && typeof t === "object") : [];
              line(`${style.cyan("●")} ${style.bold("Update Todos")}`);
              for (const [i, item] of formatTodoChecklist(items).entries())
                line(
                  `  ${i === 0 ? "⎿" : " "} ${items[i].status === "completed" ? style.dim(terminalSafe(item)) : terminalSafe(item)}`,
                );
              calls.set(block.id, { name: block.name, input: {}, label: "Update Todos", quiet: true });
              running.add(block.id);
            } else if (block.type === "tool_use" && block.name === "ExitPlanMode") {
              // The plan is what the user is asked to approve: show it whole, as markdown.
              const plan = (block.input as { plan?: unknown })?.plan;
              line(`${style.cyan("●")} ${style.bold("Plan")}`);
              printWhole(terminalSafe(typeof plan === "string" ? plan : ""));
              calls.set(block.id, { name: block.name, input: {}, label: "ExitPlanMode" });
              running.add(block.id);
            } else if (block.type === "tool_use") {
              const label = toolCallLabel(block.name, block.input, cwd);
              calls.set(block.id, { name: block.name, input: block.input as Record<string, unknown>, label });
              screen.endLine();
              screen.print(toolCallLine(block.name, block.input, cwd, style));
              running.add(block.id);
            }
          }
          streamedText = false;
          streamedThinking = false;
          screen.endLine();
          if (running.size > 0) {
            showRunning();
            wait.done();
          } else {
            status.show("Thinking…");
            wait.waiting();
          }
          return;
        }
        case "tool_progress":
          if (m.parent_tool_use_id !== null) return;
          if (!calls.has(m.tool_use_id))
            calls.set(m.tool_use_id, { name: m.tool_name, input: {}, label: terminalSafe(m.tool_name) });
          running.add(m.tool_use_id);
          showRunning();
          return;
        case "user": {
          if (m.parent_tool_use_id !== null || typeof m.message.content === "string") return;
          for (const block of m.message.content) {
            if (block.type !== "tool_result") continue;
            running.delete(block.tool_use_id);
            const call = calls.get(block.tool_use_id);
            calls.delete(block.tool_use_id);
            // A denial was said once already; an interrupted call is told by the turn's end.
            if (denied.has(block.tool_use_id) || cancelled) continue;
            if (call?.quiet && block.is_error !== true) continue;
            screen.printBlock(formatToolResult(call, block.content, block.is_error === true, style, cwd));
          }
          if (!cancelled) showRunning();
          // The results go back to the model: its next answer is awaited.
          if (!cancelled && running.size === 0) wait.waiting();
          return;
        }
        case "result":
          onResult(m);
          return;
        default:
          return;
      }
    },
  };
}

/**
 * `⎿ denied: <why>` in few words: the engine's reason without its "Permission to use … was denied"
 * preamble (the call is named on the line above) or its advice for SDK callers.
 */
function denialLine(message: string, style: Style): string {
  let why = terminalSafe(message.split("\n")[0])
    .replace(/^Permission to use .*? was denied(?::\s*)?/, "")
    .replace(/\s*To allow it, .*$/, "")
    .replace(/\.$/, "")
    .trim();
  if (why === "") why = terminalSafe(message.split("\n")[0]);
  return `  ⎿ ${style.red("denied")}${why.startsWith("by ") ? " " : ": "}${why}`;
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

/** Why a call is retried, in a few words: "rate limited (429)", "server error (529): overloaded". */
function retryReason(status: number | null, error: string): string {
  const what =
    status === 429
      ? "rate limited"
      : status === 529 || /overload/i.test(error)
        ? "overloaded"
        : status !== null && status >= 500
          ? "server error"
          : status === null
            ? "connection failed"
            : "request failed";
  // The provider's wording after its "… API error 429 (rate_limit_error):" preamble, which repeats the status.
  const detail = error
    .replace(/^.*?API error \d+(?: \([^)]*\))?:\s*/i, "")
    .replace(/\s+/g, " ")
    .trim()
    .slice(0, 60);
  return `${what}${status !== null ? ` (${status})` : ""}${detail ? `: ${detail}` : ""}`;
}

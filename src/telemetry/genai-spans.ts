/**
 * OpenTelemetry spans for a run, following the GenAI semantic conventions: one `invoke_agent` span per
 * run, a `chat {model}` span per model call, an `execute_tool {name}` span per tool call, and a
 * subagent's run as an `invoke_agent` span under its Task call's `execute_tool` span. It is one more
 * consumer of agent events (like the SDK message stream and the CLI display): the loop knows nothing
 * of it.
 *
 * Message content (prompts, answers, tool arguments and results) is recorded only when asked for,
 * as the conventions' opt-in attributes.
 */
import type { Attributes, Context, Span, Tracer } from "@opentelemetry/api";
import type { AssistantMessage } from "../llm/types.js";
import type { AgentEvent } from "../loop/events.js";
import type { ToolContent } from "../tools/types.js";

/** The part of `@opentelemetry/api` the spans need (passed in, so nothing is imported statically). */
export interface OtelApi {
  trace: typeof import("@opentelemetry/api").trace;
  context: typeof import("@opentelemetry/api").context;
  SpanKind: typeof import("@opentelemetry/api").SpanKind;
  SpanStatusCode: typeof import("@opentelemetry/api").SpanStatusCode;
}

/** What the spans know about the agent that is not in its events. */
export interface RunDescription {
  /** The agent's name (`gen_ai.agent.name`): the configured agent, else "goat". */
  agentName: string;
  /** The session id, as `gen_ai.conversation.id`. */
  sessionId: () => string;
  /** The model the next call will use, as `provider/model`. */
  currentModel: () => string;
  /** Record prompts, answers and tool input/output as span attributes. */
  recordContent: boolean;
}

/** Receives the agent events of one query and turns them into spans. */
export type SpanRecorder = (event: AgentEvent) => void;

/** Splits `provider/model` into the conventions' provider name and model name. */
function splitModel(id: string | undefined): { provider?: string; model?: string } {
  if (!id) return {};
  const slash = id.indexOf("/");
  return slash < 0 ? { model: id } : { provider: id.slice(0, slash), model: id.slice(slash + 1) };
}

/** Creates the recorder for one query's events. */
export function createSpanRecorder(api: OtelApi, tracer: Tracer, run: RunDescription): SpanRecorder {
  return createAgentSpans(api, tracer, run, api.context.active(), undefined);
}

/**
 * The spans of one agent (the main one, or a subagent under `parent`). Subagents' events arrive
 * wrapped in `subagent_event`; each gets its own recorder whose root is the Task call's span.
 */
function createAgentSpans(
  api: OtelApi,
  tracer: Tracer,
  run: RunDescription,
  parent: Context,
  subagent: { agentId: string; agentType: string } | undefined,
): SpanRecorder {
  let agentSpan: Span | undefined;
  let agentContext = parent;
  let chatSpan: Span | undefined;
  let costUsd = 0;
  const usage = { input: 0, output: 0 };
  const tools = new Map<string, { span: Span; context: Context }>();
  const children = new Map<string, SpanRecorder>();

  const startAgent = () => {
    const { provider, model } = splitModel(subagent ? undefined : run.currentModel());
    const name = subagent?.agentType ?? run.agentName;
    agentSpan = tracer.startSpan(
      `invoke_agent ${name}`,
      {
        kind: api.SpanKind.INTERNAL,
        attributes: compact({
          "gen_ai.operation.name": "invoke_agent",
          "gen_ai.agent.name": name,
          "gen_ai.agent.id": subagent?.agentId,
          "gen_ai.conversation.id": subagent ? undefined : run.sessionId(),
          "gen_ai.provider.name": provider,
          "gen_ai.request.model": model,
        }),
      },
      parent,
    );
    agentContext = api.trace.setSpan(parent, agentSpan);
    costUsd = 0;
    usage.input = 0;
    usage.output = 0;
  };

  const startChat = () => {
    // A subagent's model is known only from its answer; the span is renamed when it ends.
    const { provider, model } = splitModel(subagent ? undefined : run.currentModel());
    chatSpan = tracer.startSpan(
      model ? `chat ${model}` : "chat",
      {
        kind: api.SpanKind.CLIENT,
        attributes: compact({
          "gen_ai.operation.name": "chat",
          "gen_ai.provider.name": provider,
          "gen_ai.request.model": model,
        }),
      },
      agentContext,
    );
  };

  const endChat = (message: AssistantMessage, callCost: number) => {
    const span = chatSpan;
    chatSpan = undefined;
    if (!span) return;
    const { provider, model } = splitModel(message.model);
    if (subagent && model) span.updateName(`chat ${model}`);
    const u = message.usage;
    costUsd += callCost;
    usage.input += u ? u.input_tokens + u.cache_read_input_tokens + u.cache_creation_input_tokens : 0;
    usage.output += u?.output_tokens ?? 0;
    span.setAttributes(
      compact({
        "gen_ai.provider.name": subagent ? provider : undefined,
        "gen_ai.request.model": subagent ? model : undefined,
        "gen_ai.response.model": model,
        "gen_ai.response.id": message.id,
        "gen_ai.response.finish_reasons": message.stop_reason ? [message.stop_reason] : undefined,
        // The conventions count cached input as input; the cache parts are given beside it.
        "gen_ai.usage.input_tokens": u
          ? u.input_tokens + u.cache_read_input_tokens + u.cache_creation_input_tokens
          : undefined,
        "gen_ai.usage.output_tokens": u?.output_tokens,
        "gen_ai.usage.cache_read.input_tokens": u?.cache_read_input_tokens,
        "gen_ai.usage.cache_creation.input_tokens": u?.cache_creation_input_tokens,
        "goat.cost_usd": callCost,
        "gen_ai.output.messages": run.recordContent ? JSON.stringify([outputMessage(message)]) : undefined,
      }),
    );
    if (message.error_message !== undefined) {
      span.setAttribute("error.type", message.error_kind ?? "_OTHER");
      span.setStatus({ code: api.SpanStatusCode.ERROR, message: message.error_message });
    }
    span.end();
  };

  const startTool = (event: Extract<AgentEvent, { type: "tool_execution_start" }>) => {
    const span = tracer.startSpan(
      `execute_tool ${event.name}`,
      {
        kind: api.SpanKind.INTERNAL,
        attributes: compact({
          "gen_ai.operation.name": "execute_tool",
          "gen_ai.tool.name": event.name,
          "gen_ai.tool.call.id": event.toolUseId,
          "gen_ai.tool.type": "function",
          "gen_ai.tool.call.arguments": run.recordContent ? JSON.stringify(event.input) : undefined,
        }),
      },
      agentContext,
    );
    tools.set(event.toolUseId, { span, context: api.trace.setSpan(agentContext, span) });
  };

  const endTool = (event: Extract<AgentEvent, { type: "tool_execution_end" }>) => {
    const tool = tools.get(event.toolUseId);
    if (!tool) return;
    tools.delete(event.toolUseId);
    children.delete(event.toolUseId);
    if (run.recordContent)
      tool.span.setAttribute("gen_ai.tool.call.result", resultText(event.result.content));
    if (event.isError) {
      tool.span.setAttribute("error.type", "tool_error");
      tool.span.setStatus({ code: api.SpanStatusCode.ERROR, message: resultText(event.result.content) });
    }
    tool.span.end();
  };

  const endAgent = (event: Extract<AgentEvent, { type: "agent_end" }>) => {
    // A model call or tool still open when the run ends (an interrupt) is closed with it.
    chatSpan?.end();
    chatSpan = undefined;
    for (const { span } of tools.values()) span.end();
    tools.clear();
    if (!agentSpan) return;
    agentSpan.setAttributes({
      "gen_ai.usage.input_tokens": usage.input,
      "gen_ai.usage.output_tokens": usage.output,
      "goat.cost_usd": costUsd,
      "goat.exit_reason": event.exitReason,
    });
    if (event.exitReason === "error") {
      agentSpan.setAttribute("error.type", "agent_error");
      agentSpan.setStatus({ code: api.SpanStatusCode.ERROR, message: event.error ?? "the run failed" });
    }
    agentSpan.end();
    agentSpan = undefined;
    agentContext = parent;
  };

  return (event) => {
    switch (event.type) {
      case "agent_start":
        return startAgent();
      case "message_start":
        return startChat();
      case "message_end":
        return endChat(event.message, event.costUsd);
      case "retry":
        chatSpan?.addEvent("gen_ai.retry", {
          "goat.retry.attempt": event.attempt,
          "goat.retry.delay_ms": event.delayMs,
          "error.type": event.error.kind,
        });
        return;
      case "message_appended":
        if (run.recordContent && agentSpan && event.message.role === "user")
          agentSpan.addEvent("gen_ai.user.message", { content: JSON.stringify(event.message.content) });
        return;
      case "tool_execution_start":
        return startTool(event);
      case "tool_execution_end":
        return endTool(event);
      case "agent_end":
        return endAgent(event);
      case "subagent_event": {
        let child = children.get(event.parentToolUseId);
        if (!child) {
          const taskContext = tools.get(event.parentToolUseId)?.context ?? agentContext;
          child = createAgentSpans(api, tracer, run, taskContext, {
            agentId: event.agentId,
            agentType: event.agentType,
          });
          children.set(event.parentToolUseId, child);
        }
        return child(event.event);
      }
    }
  };
}

/** Attributes without the undefined ones (OpenTelemetry drops them with a warning otherwise). */
function compact(attributes: Record<string, Attributes[string] | undefined>): Attributes {
  const out: Attributes = {};
  for (const [key, value] of Object.entries(attributes)) if (value !== undefined) out[key] = value;
  return out;
}

/** An answer in the conventions' output-message shape (role and parts). */
function outputMessage(message: AssistantMessage) {
  return {
    role: "assistant",
    finish_reason: message.stop_reason,
    parts: message.content.map((block) => {
      if (block.type === "text") return { type: "text", content: block.text };
      if (block.type === "tool_use")
        return { type: "tool_call", id: block.id, name: block.name, arguments: block.input };
      if (block.type === "thinking") return { type: "reasoning", content: block.thinking };
      return { type: block.type };
    }),
  };
}

function resultText(content: ToolContent): string {
  if (typeof content === "string") return content;
  return content.map((block) => (block.type === "text" ? block.text : `[${block.type}]`)).join("\n");
}

/**
 * Telemetry switch: OpenTelemetry spans are produced when the host has registered a tracer provider
 * (the usual contract of instrumented libraries: existing set-ups see Goat with no code change), or
 * when it passes a tracer. Otherwise nothing is loaded and nothing is paid: `@opentelemetry/api` is an
 * optional peer dependency, imported only after its global registration has been seen.
 */
import type { Tracer } from "@opentelemetry/api";
import type { AgentEvent } from "../loop/events.js";
import { GOAT_VERSION } from "../version.js";
import { createSpanRecorder, type RunDescription } from "./genai-spans.js";
import type { TelemetryOption } from "./option.js";

export type { OtelTracerLike, TelemetryOption } from "./option.js";

/** The key under which `@opentelemetry/api` 1.x keeps its global registrations. */
const OTEL_GLOBAL = Symbol.for("opentelemetry.js.api.1");

function hasRegisteredTracerProvider(): boolean {
  const registry = (globalThis as Record<symbol, { trace?: unknown } | undefined>)[OTEL_GLOBAL];
  return registry?.trace !== undefined;
}

/**
 * The span recorder for one query, or undefined when telemetry is off or no tracer is there.
 * Never throws: telemetry that cannot start must not stop the agent.
 */
export async function startTelemetry(
  option: TelemetryOption | undefined,
  env: Record<string, string | undefined>,
  run: Omit<RunDescription, "recordContent">,
): Promise<((event: AgentEvent) => void) | undefined> {
  const settings = typeof option === "object" ? option : { enabled: option !== false };
  if (settings.enabled === false) return undefined;
  if (!settings.tracer && !hasRegisteredTracerProvider()) return undefined;
  try {
    const api = await import("@opentelemetry/api");
    const tracer = (settings.tracer as Tracer | undefined) ?? api.trace.getTracer("goat-agent", GOAT_VERSION);
    const recordContent =
      settings.recordContent ?? env.OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT === "true";
    const record = createSpanRecorder(api, tracer, { ...run, recordContent });
    return (event) => {
      try {
        record(event);
      } catch {
        // A tracing bug must not break the run it traces.
      }
    };
  } catch {
    return undefined;
  }
}

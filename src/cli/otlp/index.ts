/**
 * Trace export for the `goat` program from the standard OpenTelemetry environment variables
 * (`otlp-env.ts`), with no `--import` script: the run's GenAI spans go to an OTLP/HTTP collector
 * through Goat's own small tracer (`otlp-tracer.ts`). Costs nothing when the variables are unset.
 */
import type { TelemetryOption } from "../../index.js";
import { GOAT_VERSION } from "../../index.js";
import { otlpSetup } from "./otlp-env.js";

/** The `telemetry` option for the CLI's queries, and the flush to await before exiting. */
export interface CliTelemetry {
  option: TelemetryOption;
  flush(timeoutMs?: number): Promise<void>;
}

/** Starts the export when `env` asks for it; `warn` hears a one-line problem. */
export async function startCliTelemetry(
  env: Record<string, string | undefined>,
  warn: (message: string) => void,
): Promise<CliTelemetry | undefined> {
  const setup = otlpSetup(env, GOAT_VERSION);
  if (setup.kind === "off") return undefined;
  if (setup.warning) warn(setup.warning);
  const [api, { createOtlpTracer }] = await Promise.all([
    import("@opentelemetry/api"),
    import("./otlp-tracer.js"),
  ]);
  const { tracer, flush } = createOtlpTracer(
    {
      url: setup.url,
      headers: setup.headers,
      resource: setup.resource,
      scope: { name: "goat-agent", version: GOAT_VERSION },
    },
    (context) => (context ? api.trace.getSpanContext(context) : undefined),
    warn,
  );
  return { option: { tracer }, flush };
}

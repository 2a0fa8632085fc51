/**
 * The `telemetry` option's type, in a file of its own that names nothing from `@opentelemetry/api`:
 * Goat's public types must compile for users who do not install that optional peer.
 */

/**
 * An OpenTelemetry `Tracer`, described structurally so that Goat's public types do not require
 * `@opentelemetry/api` to be installed (it is an optional peer dependency).
 */
export interface OtelTracerLike {
  startSpan(name: string, options?: any, context?: any): any;
}

/** The `telemetry` option of `query()`: `false` turns spans off; an object tunes them. */
export type TelemetryOption =
  | boolean
  | {
      /** Default true; false turns spans off even when a tracer provider is registered. */
      enabled?: boolean;
      /**
       * Record prompts, answers and tool input/output on the spans (the conventions' opt-in
       * attributes). Default: `OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true`, else off.
       */
      recordContent?: boolean;
      /** The tracer to use instead of the globally registered provider's. */
      tracer?: OtelTracerLike;
    };

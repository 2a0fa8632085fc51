/**
 * What the standard OpenTelemetry environment variables ask of `goat`'s trace export, read once:
 * whether to export (`OTEL_TRACES_EXPORTER=otlp`, or Claude Code's `CLAUDE_CODE_ENABLE_TELEMETRY=1`
 * with an OTLP endpoint set; `OTEL_SDK_DISABLED=true` and `OTEL_TRACES_EXPORTER=none` turn it off), where (`OTEL_EXPORTER_OTLP_
 * TRACES_ENDPOINT` as is, else `OTEL_EXPORTER_OTLP_ENDPOINT` + `/v1/traces`, else the spec's
 * `http://localhost:4318`), with which headers (`…_HEADERS`: `key=value,…`, values URL-encoded), and
 * the resource (`OTEL_SERVICE_NAME`, `OTEL_RESOURCE_ATTRIBUTES`).
 */

/** The export `goat` will do, or why it will not. */
export type OtlpSetup =
  | {
      kind: "export";
      url: string;
      headers: Record<string, string>;
      resource: Record<string, string>;
      /** A variable Goat cannot follow, said once on stderr (the export still runs over HTTP JSON). */
      warning?: string;
    }
  | { kind: "off" };

const DEFAULT_ENDPOINT = "http://localhost:4318";

/** Reads the export's set-up from `env`. */
export function otlpSetup(env: Record<string, string | undefined>, version: string): OtlpSetup {
  const truthy = (v: string | undefined) => v !== undefined && /^(1|true|yes|on)$/i.test(v.trim());
  if (truthy(env.OTEL_SDK_DISABLED)) return { kind: "off" };
  const exporters = (env.OTEL_TRACES_EXPORTER ?? "")
    .split(",")
    .map((s) => s.trim().toLowerCase())
    .filter(Boolean);
  if (exporters.includes("none")) return { kind: "off" };
  const specific = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim();
  // Claude Code's switch alone often comes with metrics only: traces go out when an endpoint says where.
  const claudeAsks =
    truthy(env.CLAUDE_CODE_ENABLE_TELEMETRY) && (!!specific || !!env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim());
  if (!exporters.includes("otlp") && !claudeAsks) return { kind: "off" };

  const base = (env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim() || DEFAULT_ENDPOINT).replace(/\/+$/, "");
  const url = specific || `${base}/v1/traces`;
  const protocol = (env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ?? env.OTEL_EXPORTER_OTLP_PROTOCOL ?? "").trim();
  const warning =
    protocol === "grpc"
      ? `OTEL_EXPORTER_OTLP_PROTOCOL=grpc is not supported: goat exports traces over OTLP/HTTP with JSON bodies to ${url} (point the endpoint at the collector's HTTP port, 4318 by default)`
      : undefined;
  return {
    kind: "export",
    url,
    headers: { ...pairs(env.OTEL_EXPORTER_OTLP_HEADERS), ...pairs(env.OTEL_EXPORTER_OTLP_TRACES_HEADERS) },
    resource: {
      "service.name": "goat",
      "service.version": version,
      ...pairs(env.OTEL_RESOURCE_ATTRIBUTES),
      ...(env.OTEL_SERVICE_NAME?.trim() ? { "service.name": env.OTEL_SERVICE_NAME.trim() } : {}),
    },
    ...(warning ? { warning } : {}),
  };
}

/** `a=1,b=two%20words` as an object; malformed pairs are skipped. */
function pairs(text: string | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const part of (text ?? "").split(",")) {
    const at = part.indexOf("=");
    if (at <= 0) continue;
    const key = part.slice(0, at).trim();
    try {
      out[key] = decodeURIComponent(part.slice(at + 1).trim());
    } catch {
      out[key] = part.slice(at + 1).trim();
    }
  }
  return out;
}

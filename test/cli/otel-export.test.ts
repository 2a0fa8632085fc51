/**
 * `goat` exports its run's spans from the standard OpenTelemetry variables, with no `--import` script
 * (issue 32 item 11): a local OTLP/HTTP collector receives the agent, model-call and tool spans of a
 * tool loop, as one trace, with the headers and resource the variables give.
 */

import { writeFileSync } from "node:fs";
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { reply } from "../support/mock-provider.js";
import { runCli, useCliFixture } from "./helpers.js";

const fx = useCliFixture("goat-otel");

interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: any;
}
let collector: Server;
let collectorUrl = "";
const received: Received[] = [];

beforeAll(async () => {
  collector = createServer((req, res) => {
    let text = "";
    req.on("data", (c) => (text += c));
    req.on("end", () => {
      received.push({ path: req.url ?? "", headers: req.headers, body: JSON.parse(text) });
      res.writeHead(200, { "content-type": "application/json" }).end("{}");
    });
  });
  await new Promise<void>((r) => collector.listen(0, "127.0.0.1", r));
  collectorUrl = `http://127.0.0.1:${(collector.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => collector.close(() => r())));

const spansOf = (list: Received[]) =>
  list.flatMap((r) =>
    r.body.resourceSpans.flatMap((rs: any) => rs.scopeSpans.flatMap((ss: any) => ss.spans)),
  );
const attribute = (span: any, key: string) => span.attributes.find((a: any) => a.key === key)?.value;

describe("goat exports traces from OTEL_* variables", () => {
  it("OTEL_TRACES_EXPORTER=otlp: one trace of invoke_agent, chat and execute_tool spans reaches the collector", async () => {
    received.length = 0;
    writeFileSync(join(fx.work.path, "note.txt"), "hello\n");
    fx.mock.enqueue(
      reply.toolCalls([{ name: "Read", input: { file_path: join(fx.work.path, "note.txt") } }]),
      reply.text("It says hello."),
    );
    const r = await runCli(["-p", "read the note"], {
      env: {
        ...fx.env,
        OTEL_TRACES_EXPORTER: "otlp",
        OTEL_EXPORTER_OTLP_ENDPOINT: collectorUrl,
        OTEL_EXPORTER_OTLP_HEADERS: "authorization=Bearer%20secret-token,x-team=goats",
        OTEL_SERVICE_NAME: "my-agent",
        OTEL_RESOURCE_ATTRIBUTES: "deployment.environment=test",
      },
      cwd: fx.work.path,
    });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("It says hello.");
    expect(received.length).toBeGreaterThan(0);
    expect(received[0].path).toBe("/v1/traces");
    expect(received[0].headers.authorization).toBe("Bearer secret-token");
    expect(received[0].headers["x-team"]).toBe("goats");
    const resource = received[0].body.resourceSpans[0].resource.attributes;
    expect(resource).toContainEqual({ key: "service.name", value: { stringValue: "my-agent" } });
    expect(resource).toContainEqual({ key: "deployment.environment", value: { stringValue: "test" } });

    const spans = spansOf(received);
    const agent = spans.find((s) => s.name === "invoke_agent goat");
    const chats = spans.filter((s) => s.name.startsWith("chat "));
    const tool = spans.find((s) => s.name === "execute_tool Read");
    expect(agent).toBeDefined();
    expect(chats).toHaveLength(2);
    expect(tool).toBeDefined();
    // One trace, nested under the agent's span, each with a duration.
    for (const s of [...chats, tool]) {
      expect(s.traceId).toBe(agent.traceId);
      expect(s.parentSpanId).toBe(agent.spanId);
      expect(BigInt(s.endTimeUnixNano)).toBeGreaterThanOrEqual(BigInt(s.startTimeUnixNano));
    }
    expect(agent.parentSpanId).toBeUndefined();
    expect(attribute(chats[0], "gen_ai.usage.input_tokens")).toBeDefined();
    expect(attribute(tool, "gen_ai.tool.name")).toEqual({ stringValue: "Read" });
  });

  it("without the variables nothing is sent; a collector that is down costs one stderr line, not the run", async () => {
    received.length = 0;
    fx.mock.enqueue(reply.text("quiet run"), reply.text("still fine"));
    const quiet = await runCli(["-p", "hi"], { env: fx.env, cwd: fx.work.path });
    expect(quiet.code).toBe(0);
    expect(received).toHaveLength(0);
    const down = await runCli(["-p", "hi"], {
      env: {
        ...fx.env,
        CLAUDE_CODE_ENABLE_TELEMETRY: "1",
        OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:9",
      },
      cwd: fx.work.path,
    });
    expect(down.code).toBe(0);
    expect(down.stdout).toContain("still fine");
    expect(down.stderr.match(/could not export traces to http:\/\/127\.0\.0\.1:9\/v1\/traces/g)).toHaveLength(
      1,
    );
  });
});

/**
 * Test helpers: a real stdio MCP server script written to a temp dir, a tool context, and polling.
 */
import { randomUUID } from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";
import { pathToFileURL } from "node:url";
import { createToolSessionState, type ToolContext, type ToolResult } from "../../src/tools/types.js";
import { cachedBundle, installedVersion } from "../support/cached-bundle.js";

/** What the fixture servers import: the MCP SDK's server, its stdio transport, and zod. */
const FIXTURE_RUNTIME = [
  'export { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";',
  'export { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";',
  'export { z } from "zod";',
].join("\n");

let fixtureRuntimePath: string | undefined;

/**
 * The SDK's server code and zod bundled into one CommonJS file (test/support/cached-bundle.ts), for
 * the fixture servers to load through test/mcp/fixture-runtime-loader.mjs and its code cache: loaded
 * from one file instead of about a hundred modules, a fixture server cost about half the CPU (236 →
 * 127 ms a start; a run of the suite starts some thirty).
 */
function fixtureRuntimeFile(): string {
  fixtureRuntimePath ??= cachedBundle(
    "mcp-fixture-runtime",
    ".cjs",
    [installedVersion("@modelcontextprotocol/sdk"), installedVersion("zod"), FIXTURE_RUNTIME],
    {
      stdin: { contents: FIXTURE_RUNTIME, resolveDir: process.cwd(), loader: "js" },
      platform: "node",
      format: "cjs",
      target: "node20",
    },
  );
  return fixtureRuntimePath;
}

/** The lines a fixture server script starts with: `McpServer`, `StdioServerTransport` and `z` in scope. */
export function fixtureRuntimeImport(): string {
  const loader = pathToFileURL(path.join(import.meta.dirname, "fixture-runtime-loader.mjs")).href;
  return [
    `import { loadFixtureRuntime } from ${JSON.stringify(loader)};`,
    `const { McpServer, StdioServerTransport, z } = loadFixtureRuntime(${JSON.stringify(fixtureRuntimeFile())});`,
  ].join("\n");
}

/** A 1x1 transparent PNG. */
export const PNG_1X1 =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=";

/**
 * Writes a stdio MCP server to `dir/server.mjs` with tools: echo (read-only), image, structured,
 * fails, slow (writes `cancelled` to a file when the client cancels), spawn_child (starts a
 * grandchild and returns both pids), crash (exits with code 3), and "dotted.name". With
 * `resources`, it also offers `RESOURCE_FIXTURES`: a text note, a PNG and an MCP Apps `ui://` page.
 */
export function writeStdioServer(dir: string, options: { resources?: boolean } = {}): string {
  const file = path.join(dir, "server.mjs");
  fs.writeFileSync(
    file,
    `
import { spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
${fixtureRuntimeImport()}

const server = new McpServer({ name: "fixture", version: "2.3.4" });
const text = (t) => ({ content: [{ type: "text", text: t }] });
server.registerTool("echo", { description: "Echoes", inputSchema: { msg: z.string() }, annotations: { readOnlyHint: true } },
  async ({ msg }) => text("echo: " + msg));
server.registerTool("image", { description: "An image", annotations: { readOnlyHint: true, openWorldHint: true } },
  async () => ({ content: [{ type: "text", text: "here" }, { type: "image", data: ${JSON.stringify(PNG_1X1)}, mimeType: "image/png" }] }));
server.registerTool("structured", { description: "Structured", inputSchema: { n: z.number() }, outputSchema: { doubled: z.number() } },
  async ({ n }) => ({ content: [{ type: "text", text: String(n * 2) }], structuredContent: { doubled: n * 2 } }));
server.registerTool("fails", { description: "Fails" }, async () => ({ content: [{ type: "text", text: "no such thing" }], isError: true }));
server.registerTool("slow", { description: "Slow", inputSchema: { marker: z.string() } }, async ({ marker }, extra) => {
  await new Promise((resolve) => {
    const t = setTimeout(resolve, 30000);
    extra.signal.addEventListener("abort", () => { writeFileSync(marker, "cancelled"); clearTimeout(t); resolve(); });
  });
  return text("finished");
});
server.registerTool("spawn_child", { description: "Spawns" }, async () => {
  const child = spawn("sleep", ["1000"], { stdio: "ignore" });
  return text(JSON.stringify({ pid: process.pid, child: child.pid }));
});
server.registerTool("crash", { description: "Crashes" }, async () => { process.stderr.write("about to crash\\n"); process.exit(3); });
server.registerTool("dotted.name", { description: "Dotted" }, async () => text("dotted"));
${options.resources ? registerResources("server") : ""}
await server.connect(new StdioServerTransport());
`,
  );
  return file;
}

/**
 * A tool context for calling tools directly, with a new session id and tool state each time (the
 * state owns the session's temp directory, os.tmpdir()/goat-<id>-XXXXXX, made by mkdtemp).
 */
export function toolContext(
  signal: AbortSignal = new AbortController().signal,
  toolUseId = "toolu_1",
): ToolContext {
  return {
    signal,
    cwd: process.cwd(),
    sessionId: `mcp-test-${randomUUID()}`,
    toolUseId,
    state: createToolSessionState(),
    onUpdate: () => {},
  };
}

/** Polls `check` until it is true or `ms` pass; returns whether it became true. */
export async function waitFor(check: () => boolean, ms = 5000): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (check()) return true;
    await new Promise((r) => setTimeout(r, 25));
  }
  return check();
}

/** Whether a process runs (zombies count as gone). */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    const state = stat.slice(stat.lastIndexOf(")") + 2)[0];
    return state !== "Z" && state !== "X";
  } catch {
    return false;
  }
}

/** The text of a tool result's first block (or the whole string content). */
export function firstText(result: ToolResult): string {
  if (typeof result.content === "string") return result.content;
  const block = result.content[0];
  return block?.type === "text" ? block.text : "";
}

/** The resources `registerResources` offers: a text note, a 1x1 PNG, and an MCP Apps page. */
export const RESOURCE_FIXTURES = {
  note: { uri: "file:///notes.txt", name: "notes", mimeType: "text/plain", text: "remember the milk" },
  image: { uri: "file:///pixel.png", name: "pixel", mimeType: "image/png", blob: PNG_1X1 },
  page: { uri: "ui://widget/page.html", name: "widget", mimeType: "text/html", text: "<p>hi</p>" },
};

/** Source text that registers `RESOURCE_FIXTURES` on the McpServer in variable `server`. */
export function registerResources(server: string): string {
  return Object.values(RESOURCE_FIXTURES)
    .map(
      (r) => `${server}.registerResource(${JSON.stringify(r.name)}, ${JSON.stringify(r.uri)},
  { mimeType: ${JSON.stringify(r.mimeType)}, description: "the " + ${JSON.stringify(r.name)} },
  async (uri) => ({ contents: [{ uri: uri.href, mimeType: ${JSON.stringify(r.mimeType)}, ${
    "text" in r ? `text: ${JSON.stringify(r.text)}` : `blob: ${JSON.stringify(r.blob)}`
  } }] }));`,
    )
    .join("\n");
}

/**
 * The package as npm would deliver it: `npm pack`, the tarball installed into an empty project, then
 * used there the way a new user would — `import` the library and run a `query()` against the local mock
 * provider, start the `goat` bin, type-check the README's TypeScript samples against the packed types —
 * and the tarball checked by publint and Are the Types Wrong. What a user gets is the tarball, not this
 * checkout: a file left out of `files`, an export pointing nowhere or a README sample that no longer
 * compiles fails here.
 *
 * The core install comes first, without any optional peer: Bash lines are read with the bash grammar
 * the package ships, in-process MCP servers run, and a stdio MCP server fails saying which package it
 * needs. Then zod and the MCP SDK are put beside it (linked from this checkout), and the README samples
 * (written with zod) and the stdio server must work. The core install's size and package count, and
 * the import time, are printed (information, not assertions; bench/import.mjs measures the import
 * against a baseline).
 */
import { execFile } from "node:child_process";
import {
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { writeStdioServer } from "../mcp/helpers.js";
import { registryEnv } from "../support/extra-ca-certs.mjs";
import { type MockProvider, reply, startMockProvider } from "../support/mock-provider.js";
import { readmeTypeScriptSamples } from "./readme-samples.js";

const run = promisify(execFile);
const ROOT = resolve(import.meta.dirname, "../..");
const PACKAGE_NAME = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")).name as string;
const BIN = (name: string) => join(ROOT, "node_modules/.bin", name);

let work: string;
let tarball: string;
let consumer: string;
let mock: MockProvider;

/** Runs npm quietly; offline-first so a warm cache needs no network. */
function npm(args: string[], cwd: string) {
  return run("npm", [...args, "--no-audit", "--no-fund", "--prefer-offline", "--loglevel=error"], {
    cwd,
    maxBuffer: 64 * 1024 * 1024,
    env: { ...registryEnv(), npm_config_update_notifier: "false" },
  });
}

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), "goat-pack-"));
  // `prepare` skips the build when dist/ is newer than src/ (npm test has just built it).
  await npm(["pack", "--pack-destination", work], ROOT);
  const packed = readdirSync(work).find((name) => name.endsWith(".tgz"));
  if (!packed) throw new Error(`npm pack wrote no tarball into ${work}`);
  tarball = join(work, packed);

  consumer = join(work, "consumer");
  mkdirSync(consumer);
  writeFileSync(
    join(consumer, "package.json"),
    JSON.stringify({ name: "consumer", private: true, type: "module" }, null, 2),
  );
  await npm(["install", tarball], consumer);
  console.log(`core install (no optional peer): ${describeInstall(join(consumer, "node_modules"))}`);
  mock = await startMockProvider();
}, 240_000);

/** Bytes (apparent size) and packages under a node_modules folder, for the printed figures. */
function describeInstall(nodeModules: string): string {
  let bytes = 0;
  let packages = 0;
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else bytes += lstatSync(path).size;
    }
  };
  walk(nodeModules);
  const countIn = (dir: string) => {
    for (const name of readdirSync(dir)) {
      if (name.startsWith(".")) continue;
      if (name.startsWith("@")) countIn(join(dir, name));
      else if (existsSync(join(dir, name, "package.json"))) {
        packages++;
        if (existsSync(join(dir, name, "node_modules"))) countIn(join(dir, name, "node_modules"));
      }
    }
  };
  countIn(nodeModules);
  return `${(bytes / 1024 / 1024).toFixed(1)} MB in ${packages} packages`;
}

/**
 * Runs the installed `goat` in the consumer project with its stdin closed, as a script or CI job
 * runs it: a pipe left open would make `goat -p` wait 3 s for input that never comes.
 */
function runGoat(args: string[]): Promise<{ stdout: string; stderr: string }> {
  const running = run(join(consumer, "node_modules/.bin/goat"), args, { cwd: consumer, env: userEnv() });
  running.child.stdin?.end();
  return running;
}

/** Runs a script in the consumer project and returns its stdout. */
async function runScript(name: string, source: string): Promise<string> {
  const script = join(consumer, name);
  writeFileSync(script, source);
  const { stdout } = await run(process.execPath, [script], { cwd: consumer, env: userEnv() });
  return stdout;
}

afterAll(async () => {
  await mock?.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

/** The environment of a user whose provider is the mock. */
function userEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (!/^(ANTHROPIC_|OPENAI_|GOAT_)/.test(key)) env[key] = value;
  }
  return {
    ...env,
    ANTHROPIC_API_KEY: "test-key",
    ANTHROPIC_BASE_URL: mock.anthropicBaseURL,
    GOAT_HOME: join(work, "goat-home"),
    // Tests expecting a stdio MCP server "connected" in system/init: the first call waits this long
    // for it (default 5 s, which a loaded machine exceeded: the server was still "pending").
    MCP_TIMEOUT: "60000",
  };
}

// Each step starts node, tsc or npm on the packed package: seconds each, more on a loaded machine.
const STEP_TIMEOUT = 120_000;

describe("the packed package", () => {
  it(
    "ships the built library, the bin, the licence and the changelog, and no tests or sources",
    () => {
      const listing = JSON.parse(
        readFileSync(join(consumer, "node_modules", PACKAGE_NAME, "package.json"), "utf8"),
      );
      expect(listing.private).toBeUndefined();
      expect(listing.license).toBeTruthy();
      const installed = join(consumer, "node_modules", PACKAGE_NAME);
      const files = readdirSync(installed, { recursive: true }) as string[];
      expect(files).toContain("LICENSE");
      expect(files).toContain("CHANGELOG.md");
      expect(files).toContain(join("dist", "index.js"));
      expect(files).toContain(join("dist", "index.d.ts"));
      expect(files).toContain(join("dist", "bin", "goat.js"));
      expect(files.filter((f) => f.startsWith("src") || f.startsWith("test"))).toEqual([]);
      // The library is its bundles (tsc's per-module files stay in the checkout), the CLI its bundle.
      expect(files).toContain(join("dist", "vendor", "tree-sitter", "tree-sitter-bash.wasm"));
      expect(files).toContain(join("dist", "vendor", "tree-sitter", "LICENSE"));
      expect(files).not.toContain(join("dist", "tools", "read.js"));
      expect(files.filter((f) => f.startsWith(join("dist", "cli")))).toEqual([]);
      // Optional peers and the CLI's own dependencies are not installed with the library.
      for (const name of ["zod", "@modelcontextprotocol/sdk", "@vscode/tree-sitter-wasm", "marked", "diff"]) {
        expect(existsSync(join(consumer, "node_modules", name)), name).toBe(false);
      }
      // Source maps must not point at sources the package does not ship.
      for (const map of files.filter((f) => f.endsWith(".map"))) {
        const parsed = JSON.parse(readFileSync(join(installed, map), "utf8"));
        expect(parsed.sourcesContent?.length, `${map} carries its sources`).toBe(parsed.sources.length);
      }
    },
    STEP_TIMEOUT,
  );

  it(
    "imports and runs a query() against a provider",
    async () => {
      mock.enqueue(reply.text("hello from the packed package"));
      const script = join(consumer, "run-query.mjs");
      writeFileSync(
        script,
        `import { query } from ${JSON.stringify(PACKAGE_NAME)};
for await (const message of query({ prompt: "hi", options: { model: "anthropic/claude-sonnet-4-5", persistSession: false } })) {
  if (message.type === "result") console.log(JSON.stringify({ subtype: message.subtype, result: message.result }));
}
`,
      );
      const { stdout } = await run(process.execPath, [script], { cwd: consumer, env: userEnv() });
      expect(JSON.parse(stdout.trim())).toEqual({
        subtype: "success",
        result: "hello from the packed package",
      });
    },
    STEP_TIMEOUT,
  );

  it(
    "puts a working `goat` on the PATH of the project",
    async () => {
      const version = await runGoat(["--version"]);
      expect(version.stdout).toMatch(/\d+\.\d+\.\d+/);
      mock.enqueue(reply.text("printed by the packed bin"));
      const printed = await runGoat(["-p", "hi"]);
      expect(printed.stdout.trim()).toBe("printed by the packed bin");
      expect(printed.stderr).toBe("");
    },
    STEP_TIMEOUT,
  );

  it(
    "the goat bin speaks MCP with no MCP SDK installed: its bundle carries the client",
    async () => {
      const config = JSON.stringify({
        mcpServers: { fixture: { command: process.execPath, args: [writeStdioServer(work)] } },
      });
      mock.enqueue(
        reply.toolCalls([{ name: "mcp__fixture__echo", input: { msg: "through goat" } }]),
        reply.text("ok"),
      );
      const { stdout } = await runGoat([
        "-p",
        "hi",
        "--output-format",
        "stream-json",
        "--verbose",
        "--mcp-config",
        config,
        "--permission-mode",
        "bypassPermissions",
      ]);
      const messages = stdout
        .trim()
        .split("\n")
        .map((line) => JSON.parse(line));
      const init = messages.find((m) => m.type === "system" && m.subtype === "init");
      expect(init.mcp_servers).toEqual([{ name: "fixture", status: "connected" }]);
      expect(stdout).toContain("echo: through goat");
    },
    STEP_TIMEOUT,
  );

  it(
    "reads Bash lines with the bash grammar it ships (no tree-sitter package installed)",
    async () => {
      // In default mode only a line the engine proves read-only runs without asking; proving it
      // needs the grammar. No canUseTool: an unproven line would be denied.
      mock.enqueue(reply.toolCalls([{ name: "Bash", input: { command: "ls -a" } }]), reply.text("listed"));
      const out = await runScript(
        "bash-check.mjs",
        `import { query } from ${JSON.stringify(PACKAGE_NAME)};
for await (const m of query({ prompt: "list", options: { model: "anthropic/claude-sonnet-4-5", persistSession: false, tools: ["Bash"] } })) {
  if (m.type === "user" && Array.isArray(m.message.content)) console.log(JSON.stringify(m.message.content[0]));
}
`,
      );
      const result = JSON.parse(out.trim().split("\n")[0]);
      expect(result.is_error).toBeUndefined();
      expect(JSON.stringify(result.content)).toContain("package.json");
    },
    STEP_TIMEOUT,
  );

  it(
    "runs createSdkMcpServer tools without the MCP SDK, and names the package a stdio server needs",
    async () => {
      const statuses = await mcpStatuses();
      expect(statuses.local).toMatchObject({ status: "connected" });
      expect(statuses.fixture.status).toBe("failed");
      expect(statuses.fixture.error).toMatch(
        /need the package @modelcontextprotocol\/sdk.*npm install @modelcontextprotocol\/sdk/,
      );
    },
    STEP_TIMEOUT,
  );

  it(
    "converts a web page with the turndown the library bundles (not installed)",
    async () => {
      expect(existsSync(join(consumer, "node_modules", "turndown"))).toBe(false);
      const server = createServer((_req, res) => {
        res.writeHead(200, { "content-type": "text/html" });
        res.end("<html><body><h1>Bundled converter</h1><p>Some <b>bold</b> text.</p></body></html>");
      });
      await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
      try {
        const { port } = server.address() as AddressInfo;
        const out = await runScript(
          "web-fetch.mjs",
          `import { createToolSessionState, createWebFetchTool, runTool } from ${JSON.stringify(`${PACKAGE_NAME}/tools`)};
const tool = createWebFetchTool({ hostAllowed: () => true });
const ctx = { signal: new AbortController().signal, cwd: process.cwd(), sessionId: "s", toolUseId: "t", state: createToolSessionState(), onUpdate() {} };
const result = await runTool(tool, { url: "http://127.0.0.1:${port}/", prompt: "What is it?" }, ctx);
console.log(JSON.stringify(result));
`,
        );
        const result = JSON.parse(out.trim());
        expect(result.isError).toBeUndefined();
        expect(JSON.stringify(result.content)).toMatch(/# Bundled converter[\s\S]*\*\*bold\*\*/);
      } finally {
        server.close();
      }
    },
    STEP_TIMEOUT,
  );

  it(
    "runs the README's example test of goat-agent/testing with node --test",
    async () => {
      const readme = readFileSync(join(ROOT, "README.md"), "utf8");
      const sample = readmeTypeScriptSamples(readme, PACKAGE_NAME).find((s) =>
        s.source.includes("// agent.test.ts"),
      );
      if (!sample) throw new Error("README.md has no sample starting with // agent.test.ts");
      // Types stripped, as a user's TypeScript set-up would; the code runs as written. (esbuild, not
      // the TypeScript compiler: loading that made the test process about 75 MB bigger.)
      const { transform } = await import("esbuild");
      const { code: js } = await transform(sample.source, { loader: "ts", format: "esm", target: "es2022" });
      writeFileSync(join(consumer, "agent.test.mjs"), js);
      const outcome = await run(process.execPath, ["--test", "--test-reporter=tap", "agent.test.mjs"], {
        cwd: consumer,
        env: userEnv(),
      }).then(
        (r) => r.stdout,
        (error: { stdout?: string; stderr?: string }) => `${error.stdout ?? ""}${error.stderr ?? ""}`,
      );
      expect(outcome).toMatch(/^# pass 1$/m);
      expect(outcome).toMatch(/^# fail 0$/m);
    },
    STEP_TIMEOUT,
  );

  it(
    "imports fast: the time is printed (bench/import.mjs measures it against a baseline)",
    async () => {
      const ms = await runScript(
        "import-time.mjs",
        `const t = performance.now(); await import(${JSON.stringify(PACKAGE_NAME)}); console.log(performance.now() - t);`,
      );
      console.log(
        `import("${PACKAGE_NAME}") in the consumer project: ${Number(ms).toFixed(1)} ms (one cold run)`,
      );
      expect(Number(ms)).toBeGreaterThan(0);
    },
    STEP_TIMEOUT,
  );

  it(
    "passes publint",
    async () => {
      const { publint } = await import("publint");
      // The tarball itself, as the registry would get it (publint would otherwise run `npm pack` again).
      const bytes = readFileSync(tarball);
      const { messages } = await publint({
        pack: { tarball: bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) },
        level: "warning",
      });
      expect(messages.map((m) => `${m.type} ${m.code} ${JSON.stringify(m.args)}`)).toEqual([]);
    },
    STEP_TIMEOUT,
  );

  it(
    "passes Are the Types Wrong for an ES-module-only package",
    async () => {
      // The package is ES modules only (Node 20+): the esm-only profile leaves out the CommonJS
      // resolutions, and the exit code says whether anything the profile checks is wrong.
      const outcome = await run(BIN("attw"), [tarball, "--profile", "esm-only", "--no-color", "--no-emoji"], {
        cwd: work,
      }).then(
        () => "",
        (error: { stdout?: string; stderr?: string }) => `${error.stdout ?? ""}${error.stderr ?? ""}`,
      );
      expect(outcome).toBe("");
    },
    STEP_TIMEOUT,
  );

  it(
    "loads every entry point from the installed package, an error from a subpath being the root's class",
    async () => {
      const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { exports: object };
      // goat-agent/dbos needs its optional peers (DBOS, pg), which this project did not install.
      const specifiers = Object.keys(pkg.exports)
        .filter((subpath) => subpath !== "./dbos")
        .map((subpath) => (subpath === "." ? PACKAGE_NAME : `${PACKAGE_NAME}/${subpath.slice(2)}`));
      const script = join(consumer, "entry-points.mjs");
      writeFileSync(
        script,
        `import { GoatError, InvalidOptionError } from ${JSON.stringify(PACKAGE_NAME)};
const specifiers = ${JSON.stringify(specifiers)};
const counts = {};
for (const s of specifiers) counts[s] = Object.keys(await import(s)).length;
const { createProviderRegistry } = await import(${JSON.stringify(`${PACKAGE_NAME}/providers`)});
let caught;
try { createProviderRegistry([{ type: "nope", name: "x" }]); } catch (error) { caught = error; }
console.log(JSON.stringify({ counts, goat: caught instanceof GoatError, option: caught instanceof InvalidOptionError, code: caught?.code }));
`,
      );
      const { stdout } = await run(process.execPath, [script], { cwd: consumer, env: userEnv() });
      const report = JSON.parse(stdout.trim());
      for (const specifier of specifiers) expect(report.counts[specifier], specifier).toBeGreaterThan(0);
      expect(report).toMatchObject({ goat: true, option: true, code: "invalid_option" });
    },
    STEP_TIMEOUT,
  );
});

/** Each MCP server's status during a query with an in-process server and a stdio one. */
async function mcpStatuses(): Promise<Record<string, { status: string; error?: string }>> {
  mock.enqueue(reply.text("ok"));
  const server = writeStdioServer(work);
  const out = await runScript(
    "mcp-status.mjs",
    `import { createSdkMcpServer, defineTool, jsonSchema, query } from ${JSON.stringify(PACKAGE_NAME)};
const add = defineTool({ name: "add", description: "Adds", sideEffect: "none",
  inputSchema: jsonSchema({ type: "object", properties: { a: { type: "number" }, b: { type: "number" } }, required: ["a", "b"] }),
  execute: ({ a, b }) => ({ content: String(a + b) }) });
const q = query({ prompt: "hi", options: { model: "anthropic/claude-sonnet-4-5", persistSession: false, tools: [], mcpStartupTimeoutMs: 60_000,
  mcpServers: { local: createSdkMcpServer({ name: "local", tools: [add] }), fixture: { command: process.execPath, args: [${JSON.stringify(server)}] } } } });
for await (const m of q) {
  if (m.type === "system" && m.subtype === "init") console.log(JSON.stringify(await q.mcpServerStatus()));
}
`,
  );
  const list = JSON.parse(out.trim().split("\n")[0]) as Array<{
    name: string;
    status: string;
    error?: string;
  }>;
  return Object.fromEntries(list.map((s) => [s.name, s]));
}

describe("the packed package with its optional peers installed", () => {
  beforeAll(() => {
    // The peers are linked from this checkout's node_modules into the project's, where an install puts
    // them: Node and tsc resolve a linked package by its real path, so the MCP SDK finds its own
    // dependencies there, and it and the samples share one zod. What is tested is that the packed
    // package finds peers installed beside it; a second `npm install` (about 3-4 s of CPU for the MCP
    // SDK's hundred packages) would test npm.
    for (const name of ["zod", "@modelcontextprotocol/sdk"]) {
      const link = join(consumer, "node_modules", name);
      mkdirSync(dirname(link), { recursive: true });
      symlinkSync(join(ROOT, "node_modules", name), link, "dir");
    }
  });

  it(
    "connects a stdio MCP server through the MCP SDK the user installed",
    async () => {
      const statuses = await mcpStatuses();
      expect(statuses.local).toMatchObject({ status: "connected" });
      expect(statuses.fixture).toMatchObject({ status: "connected" });
    },
    STEP_TIMEOUT,
  );

  it(
    "type-checks every TypeScript sample in the README against the packed types",
    async () => {
      const samples = readmeTypeScriptSamples(readFileSync(join(ROOT, "README.md"), "utf8"), PACKAGE_NAME);
      expect(samples.length).toBeGreaterThanOrEqual(5);
      const dir = join(consumer, "readme");
      mkdirSync(dir);
      samples.forEach((sample, i) => {
        writeFileSync(join(dir, `sample-${i + 1}-line-${sample.line}.ts`), sample.source);
      });
      writeFileSync(
        join(consumer, "tsconfig.json"),
        JSON.stringify({
          compilerOptions: {
            target: "ES2022",
            module: "NodeNext",
            moduleResolution: "NodeNext",
            strict: true,
            noEmit: true,
            skipLibCheck: true,
            types: ["node"],
            typeRoots: [join(ROOT, "node_modules/@types")],
          },
          include: ["readme/*.ts"],
        }),
      );
      const result = await run(BIN("tsc"), ["-p", consumer], { cwd: consumer }).then(
        () => "",
        (error: { stdout?: string }) => error.stdout ?? String(error),
      );
      expect(result, "README samples that do not compile (file names carry the README line)").toBe("");
    },
    STEP_TIMEOUT,
  );
});

/**
 * The viewers of durable sessions, end to end: a real PostgreSQL (the shared test cluster), a real
 * `goat worker` against the scripted mock provider, and the real `goat sessions --database` and
 * `goat serve --database` (the latter in a headless Chromium). One session finished, one whose model
 * call failed, and one held mid-run by the mock (its second model call waits on the test) are
 * listed with their status, step, worker and error; the held one is opened in the viewer and its
 * last messages appear without a reload when the test lets the model answer. The viewer reaches the
 * database through a TCP relay in this process, which the last test turns into a black hole: the page
 * then says which database did not answer, within the bounded time.
 */
import { type ChildProcess, spawn } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { type Browser, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildIfStale, CLI, cleanEnv, ROOT, runCli } from "../cli/helpers.js";
import { type MockProvider, type MockRequest, reply, startMockProvider } from "../support/mock-provider.js";
import { findPostgres } from "../support/postgres.js";
import { type SharedPostgres, sharedPostgres } from "../support/shared-postgres.js";
import { firstPrompt, waitFor } from "./helpers.js";

const found = findPostgres();
const missing = "missing" in found ? found.missing : undefined;
const CHROMIUM = "/usr/bin/chromium";
const haveChromium = fs.existsSync(CHROMIUM);
if (missing) describe("goat sessions / serve --database", () => it.skip(missing, () => {}));

/** A prompt with a terminal escape (a title change) and markup: shown as text by both viewers. */
const RUNNING_PROMPT =
  "a running session \u001b]0;pwned\u0007 <img src=x onerror=\"window.__pwned='prompt'\">";
const LIVE_ANSWER = "The live answer <img src=x onerror=\"window.__pwned='answer'\"> arrived";

/**
 * A TCP relay to PostgreSQL that can become a black hole: connections then open and hear nothing
 * back, as when a database host stops answering (a refused port fails at once; this is what makes a
 * client wait).
 */
function startRelay(
  targetPort: number,
): Promise<{ port: number; blackHole(): void; close(): Promise<void> }> {
  const sockets = new Set<net.Socket>();
  let silent = false;
  const server = net.createServer((client) => {
    sockets.add(client);
    client.on("close", () => sockets.delete(client));
    client.on("error", () => {});
    if (silent) return;
    const upstream = net.connect(targetPort, "127.0.0.1");
    sockets.add(upstream);
    upstream.on("close", () => sockets.delete(upstream));
    upstream.on("error", () => client.destroy());
    client.on("error", () => upstream.destroy());
    client.pipe(upstream).pipe(client);
  });
  return new Promise((resolve) =>
    server.listen(0, "127.0.0.1", () =>
      resolve({
        port: (server.address() as net.AddressInfo).port,
        blackHole() {
          silent = true;
          for (const socket of sockets) socket.destroy();
        },
        close: () =>
          new Promise<void>((done) => {
            for (const socket of sockets) socket.destroy();
            server.close(() => done());
          }),
      }),
    ),
  );
}

function get(target: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    http
      .get(target, (res) => {
        let body = "";
        res.on("data", (c) => {
          body += c;
        });
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
      })
      .on("error", reject);
  });
}

describe.skipIf(missing !== undefined)("goat sessions / serve --database", () => {
  let postgres: SharedPostgres;
  let mock: MockProvider;
  let databaseUrl: string;
  let env: Record<string, string>;
  let worker: ChildProcess | undefined;
  let workerOutput = "";
  let relay: Awaited<ReturnType<typeof startRelay>> | undefined;
  let serve: ChildProcess | undefined;
  let viewerUrl = "";
  let browser: Browser | undefined;
  let home: string;
  let releaseModel: () => void = () => {};
  const ids: Record<"finished" | "failed" | "running", string> = { finished: "", failed: "", running: "" };

  async function submitDetached(prompt: string): Promise<string> {
    const run = await runCli(["submit", "--detach", prompt], { env, timeoutMs: 60_000 });
    expect(run.code, run.stderr).toBe(0);
    return run.stdout.split(" ")[0];
  }

  /** Waits (a `goat durable show` every 300 ms) until the session has ended. */
  async function waitForEnd(workflowId: string): Promise<void> {
    const deadline = Date.now() + 60_000;
    for (;;) {
      const run = await runCli(["durable", "show", "--json", workflowId], { env, timeoutMs: 60_000 });
      if (run.code === 0 && !["ENQUEUED", "PENDING"].includes(JSON.parse(run.stdout).status)) return;
      if (Date.now() > deadline) throw new Error(`${workflowId} did not end: ${run.stdout}${run.stderr}`);
      await new Promise((r) => setTimeout(r, 300));
    }
  }

  beforeAll(async () => {
    buildIfStale();
    postgres = await sharedPostgres();
    mock = await startMockProvider();
    databaseUrl = await postgres.createDatabase("viewer");
    home = fs.mkdtempSync(path.join(os.tmpdir(), "goat-dview-home-"));
    env = cleanEnv({
      DATABASE_URL: databaseUrl,
      GOAT_HOME: home,
      ANTHROPIC_API_KEY: "test-key",
      ANTHROPIC_BASE_URL: mock.anthropicBaseURL,
      GOAT_MODEL: "anthropic/claude-test",
    });
    worker = spawn(process.execPath, [CLI, "worker", "--concurrency", "2", "--id", "viewer-worker"], {
      env,
      stdio: ["ignore", "pipe", "pipe"],
    });
    worker.stdout?.on("data", (d) => {
      workerOutput += d;
    });
    worker.stderr?.on("data", (d) => {
      workerOutput += d;
    });
    await waitFor("the worker to start", () => workerOutput.includes("taking durable sessions"), 60_000);

    mock.enqueue(reply.text("All done."));
    ids.finished = await submitDetached("a finished session");
    await waitForEnd(ids.finished);
    mock.enqueue(reply.error(400, { message: "the prompt is too long: 300000 tokens" }));
    ids.failed = await submitDetached("a failing session");
    await waitForEnd(ids.failed);

    // The running one: a tool call, then a model call the mock holds until the test releases it.
    const held = new Promise<void>((resolve) => {
      releaseModel = resolve;
    });
    mock.enqueue(
      reply.toolCalls([{ name: "Read", input: { file_path: path.join(ROOT, "LICENSE") }, id: "read-1" }]),
      async () => {
        await held;
        return reply.text(LIVE_ANSWER);
      },
    );
    ids.running = await submitDetached(RUNNING_PROMPT);
    await waitFor(
      "the held model call",
      () => mock.requests.filter((r: MockRequest) => firstPrompt(r) === RUNNING_PROMPT).length === 2,
      60_000,
    );
  }, 240_000);

  afterAll(async () => {
    releaseModel();
    await browser?.close();
    for (const child of [serve, worker]) {
      if (child && child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((r) => child.once("exit", r));
        child.kill("SIGKILL");
        await exited;
      }
    }
    await relay?.close();
    await mock?.close();
    if (home) fs.rmSync(home, { recursive: true, force: true });
  });

  it("goat sessions --database lists finished, failed and running sessions: status, step, worker, version, cost, prompt, error", async () => {
    const run = await runCli(["sessions", "--database", databaseUrl], { env, timeoutMs: 60_000 });
    expect(run.code, run.stderr).toBe(0);
    const lines = run.stdout.split("\n");
    const lineOf = (id: string) => lines.find((l) => l.startsWith(id)) ?? "";
    const version = /version (\S+):/.exec(workerOutput)?.[1] as string;

    const finished = lineOf(ids.finished).split(/ {2,}/);
    expect(finished[1]).toBe("SUCCESS");
    expect(finished[3]).toMatch(/^step \d+ \S+/);
    expect(finished.slice(4)).toEqual([
      "viewer-worker",
      version,
      expect.stringMatching(/^\$\d+\.\d{4}$/),
      "a finished session",
    ]);

    const running = lineOf(ids.running);
    expect(running).toContain("PENDING");
    expect(running).toContain("viewer-worker");
    // The escape is shown, not obeyed; the markup is plain text.
    expect(running).not.toContain("\u001b");
    expect(running).toContain("<img src=x");

    const failedAt = lines.findIndex((l) => l.startsWith(ids.failed));
    expect(lines[failedAt + 1]).toMatch(/^ {4}error: .*the prompt is too long: 300000 tokens/);
    // Newest first.
    expect(lines.indexOf(lineOf(ids.running))).toBeLessThan(lines.indexOf(lineOf(ids.finished)));
    expect(lines.at(-2)).toContain("goat follow ID");
  }, 90_000);

  it("takes the database from GOAT_DATABASE_URL, and not from DATABASE_URL (an application's own, often)", async () => {
    const fromGoat = await runCli(["sessions"], {
      env: { ...env, DATABASE_URL: "", GOAT_DATABASE_URL: databaseUrl },
      timeoutMs: 60_000,
    });
    expect(fromGoat.code, fromGoat.stderr).toBe(0);
    expect(fromGoat.stdout).toContain(ids.finished);
    const local = await runCli(["sessions", "--cwd", home], { env, timeoutMs: 60_000 });
    expect(local.code).toBe(0);
    expect(local.stdout).toBe(`No sessions in ${home} yet.\n`);
    // `--database ""` asks for the local files; a folder filter with a database is refused, not ignored.
    const withGoat = { ...env, GOAT_DATABASE_URL: databaseUrl };
    const forced = await runCli(["sessions", "--database", "", "--cwd", home], {
      env: withGoat,
      timeoutMs: 60_000,
    });
    expect(forced.stdout).toBe(`No sessions in ${home} yet.\n`);
    const mixed = await runCli(["sessions", "--cwd", home], { env: withGoat, timeoutMs: 60_000 });
    expect(mixed.code).toBe(1);
    expect(mixed.stderr).toContain("--cwd lists a folder's local sessions");
  }, 90_000);

  it("fails within the bounded time, naming the database, when PostgreSQL does not answer", async () => {
    const port = postgres.port + 1000; // no cluster there
    const nowhere = `postgres://goat@127.0.0.1:${port}/nowhere`;
    const bounded = { ...env, GOAT_DATABASE_TIMEOUT_MS: "1000" };
    for (const args of [
      ["sessions", "--database", nowhere],
      ["serve", "--database", nowhere],
    ]) {
      const started = Date.now();
      const run = await runCli(args, { env: bounded, timeoutMs: 20_000 });
      expect(run.code, args.join(" ")).toBe(1);
      expect(run.stderr).toContain(`PostgreSQL at goat@127.0.0.1:${port}/nowhere did not answer within 1 s`);
      expect(run.stdout).not.toContain("http://");
      expect(Date.now() - started).toBeLessThan(10_000);
    }
  }, 60_000);

  describe.skipIf(!haveChromium)("goat serve --database in a browser", () => {
    let relayedUrl = "";

    beforeAll(async () => {
      relay = await startRelay(postgres.port);
      const url = new URL(databaseUrl);
      url.port = String(relay.port);
      relayedUrl = url.toString();
      serve = spawn(process.execPath, [CLI, "serve", "--database", relayedUrl], {
        env: { ...env, GOAT_DATABASE_TIMEOUT_MS: "1500" },
        stdio: ["ignore", "pipe", "pipe"],
      });
      viewerUrl = await new Promise<string>((resolve, reject) => {
        let out = "";
        serve?.stdout?.on("data", (b: Buffer) => {
          out += b.toString();
          const line = out.split("\n").find((l) => l.startsWith("http://"));
          if (line) resolve(line.trim());
        });
        serve?.stderr?.on("data", (b: Buffer) => {
          out += b.toString();
        });
        serve?.on("exit", (code) => reject(new Error(`goat serve exited ${code}: ${out}`)));
      });
      browser = await chromium.launch({
        executablePath: CHROMIUM,
        args: ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking"],
      });
    }, 120_000);

    async function newPage(): Promise<Page> {
      const page = await (browser as Browser).newPage();
      page.on("dialog", (dialog) => {
        throw new Error(`a dialog opened: ${dialog.message()}`);
      });
      return page;
    }

    it("listens on 127.0.0.1 with a token, and offers no route that changes a session", async () => {
      const parsed = new URL(viewerUrl);
      expect(parsed.hostname).toBe("127.0.0.1");
      expect((await get(`${parsed.origin}/api/sessions`)).status).toBe(401);
      const ok = await get(`${parsed.origin}/api/sessions${parsed.search}`);
      expect(ok.status).toBe(200);
      const rows = JSON.parse(ok.body) as Array<{
        sessionId: string;
        status: string;
        durable: { status: string };
      }>;
      expect(rows.map((r) => r.sessionId)).toEqual([ids.running, ids.failed, ids.finished]);
      expect(rows.map((r) => r.status)).toEqual(["running", "error", "success"]);
      const cancel = await new Promise<number>((resolve, reject) => {
        const req = http.request(
          `${parsed.origin}/api/session${parsed.search}&id=${ids.running}`,
          { method: "POST" },
          (res) => resolve(res.statusCode ?? 0),
        );
        req.on("error", reject);
        req.end();
      });
      expect(cancel).toBe(405);
    });

    it("lists the sessions with their status, step, worker, version and last error", async () => {
      const page = await newPage();
      await page.goto(viewerUrl);
      const rows = page.locator("tr.row");
      await expect.poll(() => rows.count(), { timeout: 15_000 }).toBe(3);
      expect(await page.locator("tr th").allTextContents()).toEqual([
        "Updated",
        "First prompt",
        "Status",
        "Step",
        "Worker",
        "Version",
        "Cost",
        "Last error",
      ]);
      const row = (text: string) => page.locator("tr.row", { hasText: text });
      expect(await row("a finished session").locator("td.state").textContent()).toBe("success");
      expect(await row("a failing session").locator("td.state").textContent()).toBe("error");
      expect(await row("a failing session").locator("td.error-cell").textContent()).toContain(
        "the prompt is too long",
      );
      expect(await row("a running session").locator("td.state").textContent()).toBe("running");
      expect(await row("a running session").locator("td.worker").textContent()).toBe("viewer-worker");
      expect(await row("a finished session").locator("td.step").textContent()).toMatch(/^\d+ \S+/);
      // The prompt's markup is text; its escape character is shown as a code.
      expect(await row("a running session").locator("a").textContent()).toContain(
        "<U+001B>]0;pwned<U+0007> <img",
      );
      expect(await page.locator("img").count()).toBe(0);
      await page.close();
    });

    it("shows a running session's messages, and its new ones arrive without a reload; the list follows", async () => {
      const list = await newPage();
      await list.goto(viewerUrl);
      const runningRow = list.locator("tr.row", { hasText: "a running session" });
      await expect
        .poll(() => runningRow.locator("td.state").textContent(), { timeout: 15_000 })
        .toBe("running");

      const page = await newPage();
      await page.goto(`${viewerUrl}#session/${ids.running}`);
      const read = page.locator("details.tool", { hasText: "Read" });
      await read.locator(".status.ok").waitFor({ timeout: 15_000 });
      expect(await page.locator(".msg.user").first().textContent()).toContain("a running session");
      expect(await page.locator(".durable-state").textContent()).toMatch(
        /^PENDING · step \d+ .* · worker viewer-worker/,
      );
      expect(await page.locator(".msg.assistant", { hasText: "The live answer" }).count()).toBe(0);
      const navigations: string[] = [];
      page.on("framenavigated", (frame) => navigations.push(frame.url()));

      releaseModel();
      await page.locator(".msg.assistant", { hasText: "The live answer" }).waitFor({ timeout: 20_000 });
      expect(await page.locator(".msg.assistant").last().textContent()).toContain(
        "The live answer <img src=x onerror=\"window.__pwned='answer'\"> arrived",
      );
      await page.locator(".run.ok").waitFor({ timeout: 20_000 });
      await expect
        .poll(() => page.locator(".durable-state").textContent(), { timeout: 20_000 })
        .toMatch(/^SUCCESS/);
      expect(navigations).toEqual([]);
      expect(await page.evaluate(() => (globalThis as { __pwned?: unknown }).__pwned)).toBeUndefined();
      expect(await page.locator("img").count()).toBe(0);

      // The list page, left open, shows the session finished on its own.
      await expect
        .poll(() => runningRow.locator("td.state").textContent(), { timeout: 20_000 })
        .toBe("success");
      await Promise.all([page.close(), list.close()]);
    }, 90_000);

    it("says which database did not answer, within the bounded time, when PostgreSQL stops answering", async () => {
      const page = await newPage();
      relay?.blackHole();
      const started = Date.now();
      await page.goto(viewerUrl);
      const failure = page.locator(".list-error");
      const label = `postgres@127.0.0.1:${relay?.port}${new URL(databaseUrl).pathname}`;
      await expect
        .poll(() => failure.textContent(), { timeout: 15_000 })
        .toContain(`PostgreSQL at ${label} did not answer within 1.5 s`);
      expect(Date.now() - started).toBeLessThan(10_000);
      await page.goto(`${viewerUrl}#session/${ids.finished}`);
      await expect
        .poll(() => page.locator(".error").first().textContent(), { timeout: 15_000 })
        .toContain(`PostgreSQL at ${label} did not answer`);
      await page.close();
    }, 60_000);
  });
});

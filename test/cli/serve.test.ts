/**
 * `goat serve` as a person uses it, in a real headless Chromium (Debian's, driven by playwright-core):
 * the real program started on a GOAT_HOME whose sessions were written by real runs against the mock
 * provider; the list, a session with its tool calls, a subagent and a diff, a session followed live
 * while it runs, the export, and a transcript full of markup that must not execute. Also the server's
 * locks: no token, a wrong token and a foreign Host header are refused.
 */
import { type ChildProcess, spawn } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { type Browser, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { query } from "../../src/sdk/query.js";
import { collect, mockOptions } from "../runtime/helpers.js";
import { type MockProvider, reply, startMockProvider } from "../support/mock-provider.js";
import { buildIfStale, CLI, cleanEnv } from "./helpers.js";

const CHROMIUM = "/usr/bin/chromium";
const haveChromium = fs.existsSync(CHROMIUM);
if (!haveChromium)
  console.warn("goat serve browser tests skipped: /usr/bin/chromium is missing (apt-get install chromium)");

let mock: MockProvider;
let home: string;
let cwd: string;
let server: ChildProcess;
let url: string;
let browser: Browser;
/**
 * One page for every test, emptied (about:blank) before each: a new page, or a new context, started a
 * renderer process each (7 pages: about 0.7 s of CPU more). Each test still loads its document afresh.
 */
let sharedPage: Page | undefined;
const sessions: Record<string, string> = {};

/** Runs one real, persisted session against the mock and returns its id. */
async function session(
  prompt: string,
  tools: string[],
  ...replies: Parameters<MockProvider["enqueue"]>
): Promise<string> {
  mock.enqueue(...replies);
  const messages = await collect(
    query({
      prompt,
      options: mockOptions(mock, "anthropic", {
        cwd,
        tools,
        persistSession: true,
        env: { ...process.env, GOAT_HOME: home },
      }),
    }),
  );
  return (messages.find((m) => m.type === "result") as { session_id: string }).session_id;
}

/** An answer using the markdown the terminal renders: emphasis, a hard break, a quote, nested lists, a table. */
const MARKDOWN_REPLY = [
  "Some *italic*, _underscored_ and **bold** text,  ",
  "after a hard break.",
  "",
  "> quoted **wisdom**",
  "",
  "1. first",
  "   - nested a",
  "   - nested b",
  "2. second",
  "",
  "| Name | Size |",
  "| :--- | ---: |",
  "| a.txt | 10 |",
].join("\n");

/**
 * A run that fails on a provider error: the session recorder keeps the errors of its result in the
 * transcript's result entry, which the viewer shows.
 */
async function failedSession(prompt: string): Promise<string> {
  mock.enqueue(reply.error(400, { message: "the prompt is too long: 300000 tokens" }));
  const messages = await collect(
    query({
      prompt,
      options: mockOptions(mock, "anthropic", {
        cwd,
        persistSession: true,
        env: { ...process.env, GOAT_HOME: home },
      }),
    }),
  );
  const result = messages.find((m) => m.type === "result") as { session_id: string; errors: string[] };
  // The transcript's result entry keeps the run's errors (the recorder writes them): nothing added here.
  const file = (fs.readdirSync(home, { recursive: true }) as string[]).find((f) =>
    f.endsWith(`${result.session_id}.jsonl`),
  )!;
  const entry = fs
    .readFileSync(path.join(home, file), "utf8")
    .trimEnd()
    .split("\n")
    .map((l) => JSON.parse(l))
    .findLast((e: { type: string }) => e.type === "result");
  expect(entry.errors).toEqual(result.errors);
  return result.session_id;
}

beforeAll(async () => {
  if (!haveChromium) return;
  buildIfStale();
  mock = await startMockProvider();
  home = fs.mkdtempSync(path.join(os.tmpdir(), "goat-serve-home-"));
  cwd = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "goat-serve-cwd-")));
  const file = path.join(cwd, "notes.md");
  sessions.work = await session(
    "Write the notes file",
    ["Write", "Read"],
    reply.toolCalls([
      { name: "Write", input: { file_path: file, content: "first line\nsecond line\n" }, id: "w1" },
    ]),
    reply.toolCalls([{ name: "Read", input: { file_path: path.join(cwd, "missing.md") }, id: "r1" }]),
    reply.text("## Done\n\n- wrote **notes.md**\n- `missing.md` is missing"),
  );
  const edited = path.join(cwd, "twelve.txt");
  fs.writeFileSync(edited, `${Array.from({ length: 12 }, (_, i) => `line ${i + 1}`).join("\n")}\n`);
  sessions.edit = await session(
    "Edit line six",
    ["Read", "Edit"],
    reply.toolCalls([{ name: "Read", input: { file_path: edited }, id: "e0" }]),
    reply.toolCalls([
      {
        name: "Edit",
        input: { file_path: edited, old_string: "line 6\n", new_string: "line six\nline 6b\n" },
        id: "e1",
      },
    ]),
    reply.text("edited"),
  );
  sessions.markdown = await session(
    "First line of the prompt\n  second line, indented\nthird line",
    [],
    reply.text(MARKDOWN_REPLY),
  );
  sessions.failed = await failedSession("Fail please");
  sessions.sub = await session(
    "Ask a helper",
    ["Task"],
    reply.toolCalls([
      {
        name: "Task",
        input: { description: "d", prompt: "helper job", subagent_type: "general-purpose" },
        id: "t1",
      },
    ]),
    reply.text("helper says hi"),
    reply.text("parent done"),
  );
  sessions.hostile = await session(
    "<script>window.__pwned = 'prompt'</script><img src=x onerror=\"window.__pwned='img'\">",
    ["Bash"],
    reply.toolCalls([
      // The comment holds a right-to-left override, which would show "exe.txt" reversed on the page.
      {
        name: "Bash",
        input: { command: "printf '<script>window.__pwned=1</script>' # \u202etxt.exe" },
        id: "b1",
      },
    ]),
    reply.text(
      "[click me](javascript:window.__pwned='link') <iframe src=\"javascript:parent.__pwned='frame'\"></iframe> <b onmouseover=\"window.__pwned='b'\">bold</b>\n\n" +
        "> <img src=x onerror=\"window.__pwned='quote'\"> *[emphasised](javascript:window.__pwned='em')*\n\n" +
        "| <script>window.__pwned='cell'</script> | ![pic](javascript:window.__pwned='image') |\n| --- | --- |\n| `<svg onload=\"window.__pwned='svg'\">` | [ok](https://example.com/) |\n\n" +
        "<details open><summary>block html</summary><img src=x onerror=\"window.__pwned='block'\"></details>\n",
    ),
  );
  server = spawn(process.execPath, [CLI, "serve"], {
    env: cleanEnv({ GOAT_HOME: home }),
    stdio: ["ignore", "pipe", "pipe"],
  });
  url = await new Promise<string>((resolve, reject) => {
    let out = "";
    server.stdout!.on("data", (b: Buffer) => {
      out += b.toString();
      const line = out.split("\n").find((l) => l.startsWith("http://"));
      if (line) resolve(line.trim());
    });
    server.on("exit", (code) => reject(new Error(`goat serve exited ${code}: ${out}`)));
  });
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
}, 120_000);

afterAll(async () => {
  await browser?.close();
  if (server && server.exitCode === null) {
    server.kill("SIGTERM");
    await new Promise((resolve) => server.once("exit", resolve));
  }
  await mock?.close();
  for (const dir of [home, cwd]) if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

/** The page, emptied; it fails the test on any dialog (an alert() from injected script would open one). */
async function newPage(): Promise<Page> {
  if (sharedPage === undefined) {
    sharedPage = await browser.newPage();
    sharedPage.on("dialog", (dialog) => {
      throw new Error(`a dialog opened: ${dialog.message()}`);
    });
  }
  await sharedPage.goto("about:blank");
  return sharedPage;
}

function get(
  target: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    http
      .get(target, { headers }, (res) => {
        let body = "";
        res.on("data", (c) => {
          body += c;
        });
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
      })
      .on("error", reject);
  });
}

describe.skipIf(!haveChromium)("goat serve", () => {
  it("prints a loopback URL with a token, and refuses requests without it or from a foreign host", async () => {
    const parsed = new URL(url);
    expect(parsed.hostname).toBe("127.0.0.1");
    expect(parsed.searchParams.get("token")).toMatch(/^[0-9a-f]{64}$/);
    expect((await get(`${parsed.origin}/api/sessions`)).status).toBe(401);
    expect((await get(`${parsed.origin}/api/sessions?token=${"0".repeat(64)}`)).status).toBe(401);
    expect(
      (await get(`${parsed.origin}/api/sessions${parsed.search}`, { host: `evil.example:${parsed.port}` }))
        .status,
    ).toBe(403);
    const ok = await get(`${parsed.origin}/api/sessions${parsed.search}`);
    expect(ok.status).toBe(200);
    expect(
      JSON.parse(ok.body)
        .map((s: { sessionId: string }) => s.sessionId)
        .sort(),
    ).toEqual(Object.values(sessions).sort());
  });

  it("lists the sessions newest first and searches them", async () => {
    const page = await newPage();
    await page.goto(url);
    const rows = page.locator("tr.row");
    await expect.poll(() => rows.count()).toBe(6);
    expect(await rows.nth(0).textContent()).toContain("<script>"); // the hostile one, last written, as text
    expect(await rows.nth(5).textContent()).toContain("Write the notes file");
    await page.fill("input.search", "helper");
    await expect.poll(() => rows.count()).toBe(1);
    expect(await rows.first().textContent()).toContain("Ask a helper");
  });

  it("shows each session's status and model in the list", async () => {
    const page = await newPage();
    await page.goto(url);
    const rows = page.locator("tr.row");
    await expect.poll(() => rows.count()).toBe(6);
    expect(await page.locator("tr th").allTextContents()).toEqual(
      expect.arrayContaining(["Status", "Model"]),
    );
    const row = (prompt: string) => page.locator("tr.row", { hasText: prompt });
    expect(await row("Write the notes file").locator("td.state").textContent()).toBe("success");
    expect(await row("Fail please").locator("td.state").textContent()).toBe("error");
    expect(await row("Write the notes file").locator("td.model").textContent()).toMatch(/\S/);
  });

  it("renders the terminal's markdown: emphasis, hard breaks, quotes, nested lists, tables; no raw markers", async () => {
    const page = await newPage();
    await page.goto(`${url}#session/${sessions.markdown}`);
    const answer = page.locator(".msg.assistant .md");
    await answer.waitFor();
    expect(await answer.locator("em").allTextContents()).toEqual(["italic", "underscored"]);
    expect(await answer.locator("strong").allTextContents()).toEqual(["bold", "wisdom"]);
    // biome-ignore lint/performance/useDomNodeTextContent: the hard break as rendered is what is tested
    expect(await answer.locator("p").first().innerText()).toBe(
      "Some italic, underscored and bold text,\nafter a hard break.",
    );
    expect(await answer.locator("blockquote").textContent()).toBe("quoted wisdom");
    expect(await answer.locator("ol > li").count()).toBe(2);
    expect(await answer.locator("ol > li ul > li").allTextContents()).toEqual(["nested a", "nested b"]);
    expect(await answer.locator("table th").allTextContents()).toEqual(["Name", "Size"]);
    expect(await answer.locator("table td").allTextContents()).toEqual(["a.txt", "10"]);
    expect(await answer.locator("table td").nth(1).getAttribute("style")).toContain("text-align: right");
    const text = await answer.textContent();
    for (const marker of ["**", "_underscored_", "*italic*", "| ---", "| :---", "---: |", "> ", "   - "])
      expect(text).not.toContain(marker);
  });

  it("keeps the line breaks of a multi-line prompt", async () => {
    const page = await newPage();
    await page.goto(`${url}#session/${sessions.markdown}`);
    const prompt = page.locator(".msg.user").first();
    await prompt.waitFor();
    // biome-ignore lint/performance/useDomNodeTextContent: the line breaks as rendered are what is tested
    expect(await prompt.innerText()).toContain(
      "First line of the prompt\n  second line, indented\nthird line",
    );
  });

  it("shows why a failed run failed: the result's error text", async () => {
    const page = await newPage();
    await page.goto(`${url}#session/${sessions.failed}`);
    await page.locator(".run.failed").waitFor();
    expect(await page.locator(".run.failed").textContent()).toContain("error_during_execution");
    expect(await page.locator(".conversation").textContent()).toContain(
      "the prompt is too long: 300000 tokens",
    );
  });

  it("shows an Edit as a unified diff with the file's line numbers and context", async () => {
    const page = await newPage();
    await page.goto(`${url}#session/${sessions.edit}`);
    const edit = page.locator("details.tool", { hasText: "Edit" });
    await edit.locator(".status.ok").waitFor();
    await edit.locator("summary").click();
    expect(await edit.locator(".diff span").allTextContents()).toEqual([
      "    3   line 3\n",
      "    4   line 4\n",
      "    5   line 5\n",
      "    6 - line 6\n",
      "    6 + line six\n",
      "    7 + line 6b\n",
      "    8   line 7\n",
      "    9   line 8\n",
      "   10   line 9\n",
    ]);
  });

  it("shows a session: markdown, tool calls with input and result, a diff, an error, the timeline", async () => {
    const page = await newPage();
    await page.goto(`${url}#session/${sessions.work}`);
    await page.waitForSelector("details.tool");
    expect(await page.locator(".md h3").first().textContent()).toBe("Done");
    expect(await page.locator(".md strong").first().textContent()).toBe("notes.md");
    const write = page.locator("details.tool").nth(0);
    await write.locator("summary").click();
    // Numbered, and no stray "+" line for the newline that ends the file.
    expect(await write.locator(".diff span").allTextContents()).toEqual([
      "    1 + first line\n",
      "    2 + second line\n",
    ]);
    expect(await write.locator(".status").textContent()).toBe("ok");
    const read = page.locator("details.tool").nth(1);
    expect(await read.getAttribute("class")).toContain("failed");
    await read.locator("summary").click();
    expect(await read.locator(".result").textContent()).toMatch(/does not exist|not found|no such/i);
    expect(await page.locator(".timeline rect").count()).toBe(3);
    expect(await page.locator(".run.ok").textContent()).toContain("success · 3 turns");
    // A picture of the page for a person to look at, asserting nothing: only when asked for (a path in
    // GOAT_SERVE_SCREENSHOT), so a run leaves no file behind and spends no time drawing it.
    const screenshot = process.env.GOAT_SERVE_SCREENSHOT;
    if (screenshot) await page.screenshot({ path: screenshot, fullPage: true });
  });

  it("nests a subagent's run under its Task call", async () => {
    const page = await newPage();
    await page.goto(`${url}#session/${sessions.sub}`);
    const task = page.locator("details.tool").first();
    await task.locator("summary").click();
    expect(await task.locator(".subagent .msg.user").textContent()).toContain("helper job");
    expect(await task.locator(".subagent .msg.assistant").textContent()).toContain("helper says hi");
  });

  it("renders hostile transcript content as text: nothing in it executes", async () => {
    const page = await newPage();
    await page.goto(`${url}#session/${sessions.hostile}`);
    await page.waitForSelector("details.tool");
    await page.locator("details.tool summary").click();
    await page.locator("b", { hasText: "bold" }).count(); // would exist only if markup were rendered
    await page.mouse.move(10, 10);
    await new Promise((r) => setTimeout(r, 300));
    expect(await page.evaluate(() => (globalThis as { __pwned?: unknown }).__pwned)).toBeUndefined();
    expect(await page.locator("iframe, img, script:not([nonce])").count()).toBe(0);
    expect(await page.locator("a[href^='javascript']").count()).toBe(0);
    // The markdown around the markup is rendered (a quote, a table, the one http link) and the markup
    // in it is text.
    const answer = page.locator(".msg.assistant .md").last();
    expect(await answer.locator("blockquote").textContent()).toContain("<img src=x onerror=");
    expect(await answer.locator("table th").first().textContent()).toBe(
      "<script>window.__pwned='cell'</script>",
    );
    expect(await answer.locator("table code").textContent()).toContain("<svg onload=");
    expect(
      await answer.locator("a").evaluateAll((links) => links.map((a) => a.getAttribute("href"))),
    ).toEqual(["https://example.com/"]);
    expect(await answer.textContent()).toContain("javascript:window.__pwned='em'");
    expect(await answer.textContent()).toContain("<details open><summary>block html</summary>");
    expect(
      await page.locator("details:not(.tool):not(.thinking):not(.boundary), svg:not(.chart)").count(),
    ).toBe(0);
    expect(await page.locator(".msg.user").first().textContent()).toContain(
      "<script>window.__pwned = 'prompt'</script>",
    );
    expect(await page.locator(".result").textContent()).toContain("<script>window.__pwned=1</script>");
    // Bidi overrides show as what they are, as in the terminal.
    expect(await page.locator("details.tool summary .arg").textContent()).toContain("# <U+202E>txt.exe");
    expect(await page.locator("details.tool pre.input").textContent()).not.toContain("\u202e");
  });

  it("follows a running session: a new turn appears without reloading", async () => {
    const page = await newPage();
    // A run whose second answer streams slowly, so the page is open while it is written.
    mock.enqueue(
      reply.toolCalls([{ name: "Bash", input: { command: "sleep 1; echo slept" }, id: "s1" }]),
      reply.text("finished after the nap", { delayMs: 40 }),
    );
    const running = collect(
      query({
        prompt: "Take a nap",
        options: mockOptions(mock, "anthropic", {
          cwd,
          tools: ["Bash"],
          persistSession: true,
          env: { ...process.env, GOAT_HOME: home },
        }),
      }),
    );
    let id: string | undefined;
    let statusWhileRunning: string | undefined;
    await expect
      .poll(
        async () => {
          const list = JSON.parse(
            (await get(`${new URL(url).origin}/api/sessions${new URL(url).search}`)).body,
          );
          const row = list.find((s: { firstPrompt: string }) => s.firstPrompt === "Take a nap");
          id = row?.sessionId;
          statusWhileRunning = row?.status;
          return id;
        },
        { timeout: 10_000 },
      )
      .toBeTruthy();
    await page.goto(`${url}#session/${id}`);
    await page.waitForSelector(".msg.user");
    await running;
    // Seen while the run was in its one-second tool call, before its result was written.
    expect(statusWhileRunning).toBe("running");
    await expect
      .poll(() => page.locator(".msg.assistant").allTextContents(), { timeout: 10_000 })
      .toEqual(expect.arrayContaining([expect.stringContaining("finished after the nap")]));
    expect(await page.locator(".status").first().textContent()).toBe("ok");
  });

  it("exports a session as one self-contained HTML file that renders offline", async () => {
    const exported = await get(
      `${new URL(url).origin}/export?id=${sessions.hostile}&token=${new URL(url).searchParams.get("token")}`,
    );
    expect(exported.status).toBe(200);
    expect(exported.body).not.toMatch(/<\/script><script>window/);
    const file = path.join(home, "export.html");
    fs.writeFileSync(file, exported.body);
    const page = await newPage();
    await page.goto(`file://${file}`);
    await page.waitForSelector(".msg.user");
    expect(await page.locator(".msg.assistant").last().textContent()).toContain(
      "javascript:window.__pwned='link'",
    );
    expect(await page.evaluate(() => (globalThis as { __pwned?: unknown }).__pwned)).toBeUndefined();
  });
});

/**
 * A shell start-up file named by the session's environment is code that every Bash call runs: in
 * acceptEdits a model that could rewrite it would turn the next auto-allowed read-only command (`ls`)
 * into anything. Through query() over the real wire: the write is asked (and refused here), so the
 * following `ls` runs the user's file unchanged.
 */
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { query } from "../../src/sdk/query.js";
import { collect, mockOptions, tempDir, toolResultsSent } from "../runtime/helpers.js";
import { type MockProvider, reply, startMockProvider } from "../support/mock-provider.js";

let mock: MockProvider;
let project: string;

beforeAll(async () => {
  mock = await startMockProvider();
});

afterAll(async () => {
  await mock.close();
});

it.each(["BASH_ENV", "ENV"])(
  "in acceptEdits, rewriting the file %s names is asked, not auto-allowed",
  async (variable) => {
    mock.requests.length = 0;
    project = tempDir("goat-startup-file-");
    fs.writeFileSync(path.join(project, "setup.sh"), "export GREETING=hello\n");
    const marker = path.join(project, `pwned-${variable}`);
    mock.enqueue(
      reply.toolCalls([
        {
          id: "w",
          name: "Write",
          input: { file_path: path.join(project, "setup.sh"), content: `touch ${marker}\n` },
        },
      ]),
      reply.toolCalls([{ id: "l", name: "Bash", input: { command: "ls" } }]),
      reply.text("done"),
    );
    const asked: string[] = [];
    await collect(
      query({
        prompt: "tidy up",
        options: mockOptions(mock, "anthropic", {
          cwd: project,
          env: { ...process.env, [variable]: "./setup.sh" },
          tools: ["Bash", "Write"],
          permissionMode: "acceptEdits",
          canUseTool: async (name) => {
            asked.push(name);
            return { behavior: "deny", message: "no" };
          },
        }),
      }),
    );
    expect(asked).toEqual(["Write"]);
    expect(fs.readFileSync(path.join(project, "setup.sh"), "utf8")).toBe("export GREETING=hello\n");
    expect(fs.existsSync(marker)).toBe(false);
    const ls = toolResultsSent(mock.requests[2].body).find((r) => r.id === "l");
    expect(ls?.isError).toBe(false);
    expect(ls?.content).toContain("setup.sh");
  },
);

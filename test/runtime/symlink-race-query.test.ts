/**
 * The runtime hands the permission engine's scope to the file tools (ToolContext.fileScope), so a
 * link changed while the user is being asked cannot carry the approved Write elsewhere. Through
 * query(): the canUseTool callback repoints a directory link to outside the project, then approves.
 */
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { query } from "../../src/sdk/query.js";
import { type MockProvider, reply, startMockProvider } from "../support/mock-provider.js";
import { tempDir } from "../support/temp-dirs.js";
import { collect, mockOptions, toolResultsSent } from "./helpers.js";

let mock: MockProvider;
beforeAll(async () => {
  mock = await startMockProvider();
});
afterAll(async () => {
  await mock.close();
});

it("a Write approved while its directory link is repointed outside is refused, nothing written outside", async () => {
  const root = tempDir("goat-race-query-");
  const cwd = path.join(root, "project");
  const outside = path.join(root, "outside");
  fs.mkdirSync(path.join(cwd, "real"), { recursive: true });
  fs.mkdirSync(outside);
  const dirLink = path.join(cwd, "dir");
  fs.symlinkSync(path.join(cwd, "real"), dirLink);
  const filePath = path.join(dirLink, "made.txt");
  mock.enqueue(
    reply.toolCalls([{ name: "Write", input: { file_path: filePath, content: "x\n" }, id: "w1" }]),
    reply.text("ok"),
  );
  let asked = 0;
  await collect(
    query({
      prompt: "x",
      options: mockOptions(mock, "anthropic", {
        cwd,
        tools: ["Write"],
        permissionMode: "default",
        canUseTool: async (_tool, input) => {
          asked++;
          // While the user looks at the prompt, something else repoints the link.
          fs.symlinkSync(outside, `${dirLink}.new`);
          fs.renameSync(`${dirLink}.new`, dirLink);
          return { behavior: "allow", updatedInput: input };
        },
      }),
    }),
  );
  expect(asked).toBe(1);
  expect(fs.readdirSync(outside)).toEqual([]);
  const sent = toolResultsSent(mock.requests[1].body)[0];
  expect(sent.isError).toBe(true);
  expect(sent.content).toContain("outside the allowed directories");
});

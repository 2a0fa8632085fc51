/**
 * Benchmark: what Claude Code's tool output shapes (`tool_use_result`) cost per tool call (built dist/).
 * query() now runs the built-in tools with `fullDetails` (Write reads the file it replaces, Edit keeps
 * both texts, Read counts the lines it did not read) and shapes each result (`structuredPatch` for
 * Write and Edit). Each tool call is timed with the shaping against the same call without it, same run,
 * on real files in a temp folder:
 * - Edit of one line in a 2,000-line file;
 * - Write replacing a 2,000-line file;
 * - Read of the first 100 lines of a 100,000-line (about 5 MB) file, where the count reads the rest.
 *
 *   npx tsc -p tsconfig.build.json && node bench/tool-use-result.mjs [rounds=200]
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const ROUNDS = Number(process.argv[2] ?? 200);
const { editTool } = await import("../dist/tools/edit.js");
const { writeTool } = await import("../dist/tools/write.js");
const { readTool } = await import("../dist/tools/read.js");
const { runTool } = await import("../dist/tools/define-tool.js");
const { createToolSessionState } = await import("../dist/tools/types.js");
const { sdkToolUseResult } = await import("../dist/sdk/claude-tool-response.js");

const dir = mkdtempSync(join(tmpdir(), "goat-bench-tur-"));
const lines = (n, tag) => Array.from({ length: n }, (_, i) => `line ${i} of the file, ${tag}`).join("\n");
const source = join(dir, "source.ts");
const big = join(dir, "big.log");
writeFileSync(big, `${lines(100_000, "log")}\n`);

function context(state, fullDetails) {
  return {
    signal: new AbortController().signal,
    cwd: dir,
    sessionId: "bench",
    toolUseId: "toolu_bench",
    state,
    onUpdate: () => {},
    fullDetails,
  };
}

/** One call of `tool`, then (when shaped) its tool_use_result; returns ms. */
async function timedCall(tool, input, state, shaped) {
  const start = process.hrtime.bigint();
  const result = await runTool(tool, input, context(state, shaped));
  if (shaped) {
    const out = sdkToolUseResult(tool.name, input, result, result.isError === true);
    JSON.stringify(out);
  }
  if (result.isError) throw new Error(`${tool.name} failed: ${JSON.stringify(result.content)}`);
  return Number(process.hrtime.bigint() - start) / 1e6;
}

async function compare(name, prepare, tool, input) {
  const plain = [];
  const shaped = [];
  for (let i = 0; i < ROUNDS; i++) {
    for (const [list, on] of i % 2 === 0
      ? [
          [plain, false],
          [shaped, true],
        ]
      : [
          [shaped, true],
          [plain, false],
        ]) {
      const state = createToolSessionState();
      await prepare(state);
      list.push(await timedCall(tool, input, state, on));
    }
  }
  const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const p = median(plain.slice(5));
  const s = median(shaped.slice(5));
  console.log(`${name}: ${p.toFixed(3)} ms plain, ${s.toFixed(3)} ms shaped (${(s / p).toFixed(2)}x)`);
  return {
    plainMs: Math.round(p * 1000) / 1000,
    shapedMs: Math.round(s * 1000) / 1000,
    ratio: Math.round((s / p) * 100) / 100,
  };
}

/** Puts the 2,000-line file back and records it as read, so Edit and Write accept it. */
async function freshSource(state) {
  writeFileSync(source, `${lines(2000, "v1")}\n`);
  await runTool(readTool, { file_path: source, limit: 1 }, context(state, false));
}

const edit = await compare("Edit (2,000-line file)", freshSource, editTool, {
  file_path: source,
  old_string: "line 1000 of the file, v1",
  new_string: "line 1000 of the file, edited",
});
const write = await compare("Write (replaces 2,000 lines)", freshSource, writeTool, {
  file_path: source,
  content: `${lines(2000, "v2")}\n`,
});
const read = await compare("Read (100 of 100,000 lines)", async () => {}, readTool, {
  file_path: big,
  limit: 100,
});
rmSync(dir, { recursive: true, force: true });
console.log(JSON.stringify({ bench: "tool-use-result", rounds: ROUNDS, edit, write, read }));

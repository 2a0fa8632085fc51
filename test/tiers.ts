/**
 * Which vitest project (tier) each test file runs in. `npm test` runs all three; `npm run test:unit`
 * runs the first alone, in seconds, while you work.
 *
 * - **unit**: the files listed in `UNIT`. Everything happens in the test's own process, in memory:
 *   no child process, no server (not even on 127.0.0.1), no PostgreSQL, no terminal. An agent's
 *   model there is `scriptedModel()` of `goat-agent/testing`. `test/support/unit-guard.ts` holds the
 *   tier to that: starting a process or a server in a unit file fails the test and says so.
 * - **end-to-end**: the folders in `END_TO_END`, whose tests run whole programs: the built `goat` CLI
 *   (in a pseudo-terminal for the interactive mode), the official Claude Agent SDKs driving it,
 *   PostgreSQL for the durable workers, Chromium for the session viewer, the packed package.
 * - **wire**: every other file. Real I/O from the test's own process: the mock provider over HTTP,
 *   MCP servers, tools' child processes (Bash under bubblewrap, ripgrep, hook commands).
 *
 * A new test file lands in wire unless it sits in an end-to-end folder. When it needs none of wire's
 * I/O, add it to `UNIT` (the guard tells you if it does need some).
 */

/** Files that run in memory only; a whole folder is a glob, as `test/schema/` is below. */
export const UNIT = [
  "test/runtime/file-checkpoints.test.ts",
  "test/runtime/front-matter.test.ts",
  "test/runtime/loop-in-memory.test.ts",
  "test/runtime/memory-files.test.ts",
  "test/runtime/project-description-files.test.ts",
  "test/runtime/plan-mode.test.ts",
  "test/runtime/subagent-limits.test.ts",
  "test/cli/args.test.ts",
  "test/cli/durable-entries.test.ts",
  "test/cli/hljs-html-fragment.test.ts",
  "test/cli/safe-text.test.ts",
  "test/cli/session-list.test.ts",
  "test/cli/slash-command-dispatch.test.ts",
  "test/cli/terminal/**/*.test.ts",
  "test/cli/thinking-view.test.ts",
  "test/cli/trust-store.test.ts",
  "test/cli/untrusted-project-config.test.ts",
  "test/compaction/cut-point.test.ts",
  "test/compaction/serialize.test.ts",
  "test/hooks/aggregate.test.ts",
  "test/hooks/callbacks.test.ts",
  "test/hooks/matcher.test.ts",
  "test/llm/body-json.test.ts",
  "test/llm/catalog.test.ts",
  "test/llm/retry-iterator.test.ts",
  "test/llm/sse.test.ts",
  "test/mcp/config-file.test.ts",
  "test/mcp/result-mapping.test.ts",
  "test/permissions/bash-split.test.ts",
  "test/permissions/engine.test.ts",
  "test/permissions/rules.test.ts",
  "test/sandbox/sandbox-config.test.ts",
  "test/schema/**/*.test.ts",
  "test/session/api.test.ts",
  "test/session/jsonl-listing-writes.test.ts",
  "test/session/jsonl-store.test.ts",
  "test/session/resume.test.ts",
  "test/testing/scripted-model.test.ts",
  "test/tools/builtin-schemas.test.ts",
  "test/tools/edit.test.ts",
  "test/tools/glob.test.ts",
  "test/tools/paths.test.ts",
  "test/tools/registry.test.ts",
  "test/tools/web/special-addresses.test.ts",
  "test/tools/write.test.ts",
];

/** Folders whose tests run whole programs (the CLI, the SDKs, PostgreSQL, the packed package). */
export const END_TO_END = [
  "test/cli/**/*.test.ts",
  "test/dbos/**/*.test.ts",
  "test/package/**/*.test.ts",
  "test/sdk/**/*.test.ts",
];

/** Every test file. */
export const ALL = ["test/**/*.test.ts"];

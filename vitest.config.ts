import { configDefaults, defineConfig } from "vitest/config";
import { LongestFirstSequencer } from "./test/sequencer.js";
import { ALL, END_TO_END, UNIT } from "./test/tiers.js";

/** The build, the SDK install and PostgreSQL's directory: what the wire and end-to-end tiers use. */
const globalSetup = ["test/global-setup.ts"];
/** An `exclude` replaces vitest's own (node_modules…): the SDK's install in test/sdk/ carries tests. */
const excluding = (...globs: string[]) => [...configDefaults.exclude, ...globs];

export default defineConfig({
  test: {
    // Three tiers (test/tiers.ts says which file is in which): `vitest run` runs them all,
    // `vitest run --project unit` the in-memory one alone.
    projects: [
      {
        extends: true,
        test: { name: "unit", include: UNIT, setupFiles: ["test/support/unit-guard.ts"] },
      },
      {
        extends: true,
        test: { name: "wire", include: ALL, exclude: excluding(...UNIT, ...END_TO_END), globalSetup },
      },
      { extends: true, test: { name: "e2e", include: END_TO_END, exclude: excluding(...UNIT), globalSetup } },
    ],
    setupFiles: ["test/setup-each-file.ts"],
    testTimeout: 20_000,
    hookTimeout: 20_000,
    // Four workers on two cores: much of a worker's time is spent waiting (on child processes,
    // PostgreSQL, PTYs, timeouts a test must see fire), and the extra workers fill those gaps.
    // Measured in interleaved pairs on the 2-core machine (2026-11-27, after the suite's CPU was cut to
    // about 115 s): 4 workers were 2-10% faster than 3 in all 5 pairs (70-81 s against 71-89 s; the
    // machine's speed drifts, hence pairs), for about 5% more CPU; 5 and 6 no better than 4 within the
    // noise; earlier, 2 workers took 103 s against 84 s for 3. Again at about 105 s of CPU: 63.9 /
    // 63.2 s with 4 against 68.5 / 69.4 s with 3 (the two cores stay about 97% busy with 4). No failure
    // in repeated runs. If timing-sensitive tests start failing under contention, 3 is the safe value.
    maxWorkers: 4,
    // Each worker runs its files one after another in one process, keeping the modules it loaded.
    // Isolating every file in a new process cost about 0.2 s of start-up and a fresh load of zod,
    // the library and its dependencies per file: 133 files spent 33 s importing (of 152 s) and the
    // suite about 75 s of CPU more. Tests must leave no global state behind (they restore env
    // variables and kill only what they started); a leak shows up as a failure in a later file.
    isolate: false,
    // The bash grammar (WebAssembly) that the permission checks load: without this flag V8 spends
    // about 0.5 s of CPU per process on it in the background (a script that loads it and parses one
    // line: 0.67 s of CPU against 0.12 s), which each worker paid once or more. The `goat` program sets
    // the same flag for itself (src/cli/wasm-tier.ts). Measured on test/runtime, permissions, tools,
    // security and hooks: 18.5 / 17.0 s of CPU without it, 14.5 / 14.2 s with it.
    execArgv: ["--liftoff-only"],
    sequence: { sequencer: LongestFirstSequencer },
  },
});

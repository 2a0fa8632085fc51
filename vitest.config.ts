import { defineConfig } from "vitest/config";
import { LongestFirstSequencer } from "./test/sequencer.js";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    globalSetup: ["test/global-setup.ts"],
    testTimeout: 20_000,
    hookTimeout: 20_000,
    // Three workers on two cores: about half of a worker's time is spent waiting (on child processes,
    // PostgreSQL, PTYs, timeouts a test must see fire), and a third worker fills those gaps. Measured
    // back to back on the 2-core machine: 103 s with 2 workers, 84 s with 3, 84 s with 4 (more CPU);
    // no failure in repeated runs under outside load. If timing-sensitive tests start failing under
    // contention, 2 is the safe value.
    maxWorkers: 3,
    // Each worker runs its files one after another in one process, keeping the modules it loaded.
    // Isolating every file in a new process cost about 0.2 s of start-up and a fresh load of zod,
    // the library and its dependencies per file: 133 files spent 33 s importing (of 152 s) and the
    // suite about 75 s of CPU more. Tests must leave no global state behind (they restore env
    // variables and kill only what they started); a leak shows up as a failure in a later file.
    isolate: false,
    sequence: { sequencer: LongestFirstSequencer },
  },
});

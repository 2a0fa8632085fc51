import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    globalSetup: ["test/global-setup.ts"],
    testTimeout: 20_000,
    hookTimeout: 20_000,
    // Two cores on CI: more workers than that only adds contention to timing-sensitive tests.
    maxWorkers: 2,
  },
});

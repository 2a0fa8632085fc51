/**
 * The order test files start in: the longest first, so the workers finish together instead of one
 * starting a 30-second file near the end. Vitest orders by the durations it cached on the previous
 * run, but a fresh clone (CI) has no cache and falls back to file size, which puts a 9-second file
 * after a hundred short ones. The files below are the ones that took longest when measured (wall
 * time in a full run on the 2-core machine, 2026-11-27; slowest first); they go first in this order,
 * and every other file keeps Vitest's order.
 */
import { BaseSequencer, type TestSpecification } from "vitest/node";

const LONGEST_FIRST = [
  "test/dbos/queue-workers.test.ts",
  "test/package/pack.test.ts",
  "test/sdk/sdk-flags.test.ts",
  "test/cli/interactive-keys.test.ts",
  "test/dbos/crash-recovery.test.ts",
  "test/sandbox/escape-suite.test.ts",
  "test/security/differential-fuzz.test.ts",
  "test/cli/interactive.test.ts",
  "test/cli/serve.test.ts",
  "test/cli/print.test.ts",
  "test/dbos/cli.test.ts",
  "test/cli/cli-misc.test.ts",
  "test/cli/workspace-trust.test.ts",
  "test/cli/interactive-render.test.ts",
  "test/tools/bash.test.ts",
  "test/sdk/sdk-controls.test.ts",
  "test/mcp/stdio.test.ts",
];

export class LongestFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const rank = (file: TestSpecification) => {
      const index = LONGEST_FIRST.findIndex((path) => file.moduleId.endsWith(path));
      return index === -1 ? LONGEST_FIRST.length : index;
    };
    // Array.prototype.sort is stable: files off the list keep Vitest's own order.
    return sorted.sort((a, b) => rank(a) - rank(b));
  }
}

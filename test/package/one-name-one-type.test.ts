/**
 * One name, one meaning across the entry points: a program that imports `X` from two entries must get
 * the same declaration, or it holds two types it cannot tell apart by name (as `HookPermissionDecision`
 * once was a string union in `goat-agent/hooks` and an interface in `goat-agent/permissions`). Read
 * from the API reports (`etc/*.api.md`, checked against the code by `npm test`).
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const etc = join(import.meta.dirname, "../../etc");

/** Each exported declaration of a report, by name: its text up to the next blank line. */
function declarations(report: string): Map<string, string> {
  const found = new Map<string, string>();
  for (const block of report.split(/\n\s*\n/)) {
    const match =
      /^export (?:declare )?(?:abstract )?(?:type|interface|class|function|const|enum) (\w+)/m.exec(block);
    if (match) found.set(match[1], block.slice(match.index).trim());
  }
  return found;
}

describe("the entry points' exports", () => {
  it("give one declaration per name, whichever entry a program imports it from", () => {
    const seen = new Map<string, { entry: string; text: string }>();
    const clashes: string[] = [];
    for (const file of readdirSync(etc).filter((f) => f.endsWith(".api.md"))) {
      for (const [name, text] of declarations(readFileSync(join(etc, file), "utf8"))) {
        const earlier = seen.get(name);
        if (earlier && earlier.text !== text) clashes.push(`${name}: ${earlier.entry} and ${file} differ`);
        else seen.set(name, { entry: file, text });
      }
    }
    expect(seen.size).toBeGreaterThan(100);
    expect(clashes).toEqual([]);
  });
});

/**
 * The processes a test started, found in Linux's /proc: for tests that must wait until a command
 * really runs (to interrupt it, say) instead of sleeping for a guess of how long it takes to start.
 */
import { readdirSync, readFileSync } from "node:fs";

/**
 * The first descendant of `root` (breadth first) whose command line, its arguments joined by
 * spaces, contains `needle`; undefined when there is none (yet).
 */
export function findDescendant(root: number | undefined, needle: string): number | undefined {
  const queue = root === undefined ? [] : [root];
  while (queue.length > 0) {
    const pid = queue.shift() as number;
    let children: number[] = [];
    try {
      children = readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8")
        .trim()
        .split(/\s+/)
        .filter(Boolean)
        .map(Number);
    } catch {
      continue;
    }
    for (const c of children) {
      try {
        if (readFileSync(`/proc/${c}/cmdline`, "utf8").replaceAll("\0", " ").includes(needle)) return c;
      } catch {
        // gone already
      }
      queue.push(c);
    }
  }
  return undefined;
}

/**
 * The processes on the machine whose command line, its arguments joined by spaces, contains
 * `needle`: for processes that left the test's tree (`setsid`, `nohup`, a sandbox's own namespace).
 */
export function processesMentioning(needle: string): number[] {
  const found: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      if (readFileSync(`/proc/${entry}/cmdline`, "utf8").replaceAll("\0", " ").includes(needle)) {
        found.push(Number(entry));
      }
    } catch {
      // gone already
    }
  }
  return found;
}

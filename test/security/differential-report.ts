/**
 * The differential fuzzer's closing note: figures per mode, and the escapes grouped into classes (the
 * productions a line came from, the mode, the kind of canary it hit) with one example line each, so a
 * failure reads as a short list of distinct holes rather than hundreds of lines.
 */
import type { Escape, ModeFigures } from "./differential-run.js";

/** The kind of a hit, without the paths: `outside: read`, `protected: created`, `output: secret`… */
function hitKind(hit: string): string {
  const m = /^(outside|protected|temp): (\w+)/.exec(hit);
  if (m) return `${m[1]}: ${m[2]}`;
  if (hit.startsWith("read-only line changed")) return "read-only line changed the project";
  if (hit.startsWith("secret copied")) return "secret copied into the project";
  if (hit.startsWith("listing copied")) return "listing copied into the project";
  if (hit.includes("shows the secret")) return "output: secret";
  if (hit.includes("lists a canary")) return "output: listing";
  if (hit.includes("tried to write outside")) return "output: write outside refused by the jail";
  return hit;
}

/** The productions that make a line's class: attacks and unusual paths, else the program. */
function classOf(e: Escape): string {
  const line = e.part?.line ?? e.line;
  const special = line.tags.filter((t) => !t.startsWith("spec:") && t !== "redirect");
  const tags = special.length > 0 ? special : line.tags;
  return [...new Set(tags)].sort().join(" ");
}

/** The line an escape is shown by: the escaping part when the line had one. */
function shown(e: Escape): { text: string; hits: string[] } {
  return e.part ? { text: e.part.line.text, hits: e.part.hits } : { text: e.line.text, hits: e.hits };
}

/** Distinct classes of escapes, each with a count and its shortest example. */
export function escapeClasses(
  escapes: readonly Escape[],
): Array<{ key: string; count: number; example: Escape }> {
  const groups = new Map<string, { key: string; count: number; example: Escape }>();
  for (const e of escapes) {
    const kinds = [...new Set((e.part?.hits ?? e.hits).map(hitKind))].sort().join("; ");
    const key = `${e.mode} | ${classOf(e)} | ${kinds}`;
    const g = groups.get(key);
    if (!g) groups.set(key, { key, count: 1, example: e });
    else {
      g.count++;
      if (shown(e).text.length < shown(g.example).text.length) g.example = e;
    }
  }
  return [...groups.values()].sort((a, b) => a.key.localeCompare(b.key));
}

/** The text printed at the end of a run. */
export function report(seed: number, figures: Record<string, ModeFigures>, totalMs: number): string {
  const lines = [
    `differential fuzz, seed ${seed} (GOAT_FUZZ_SEED=${seed} reproduces), ${(totalMs / 1000).toFixed(1)} s`,
  ];
  const all: Escape[] = [];
  for (const [mode, f] of Object.entries(figures)) {
    lines.push(
      `  ${mode}: ${f.generated} lines generated, ${f.allowed} auto-allowed, ${f.ran} run (${f.jailRuns} jails), ` +
        `${f.escapes.length} hit a canary, ${f.unpinned.length} batches hit but were not pinned (out of time), ` +
        `${f.batchOnly} batch-only hits; engine ${(f.engineMs / 1000).toFixed(1)} s ` +
        `(${((f.engineMs * 1000) / Math.max(1, f.generated)).toFixed(0)} µs/line), jails ${(f.jailMs / 1000).toFixed(1)} s`,
    );
    all.push(...f.escapes);
    for (const u of f.unpinned.slice(0, 3))
      lines.push(`    unpinned batch of ${u.lines.length} lines: ${u.hits.slice(0, 3).join("; ")}`);
  }
  const classes = escapeClasses(all);
  if (classes.length > 0) {
    lines.push(
      `  ${all.length} escaping lines in ${classes.length} classes (mode | productions | canary hit):`,
    );
    for (const c of classes) {
      lines.push(`  - ${c.key} (${c.count}×)`);
      const { text, hits } = shown(c.example);
      lines.push(`      ${JSON.stringify(text)}`);
      lines.push(`      ${hits.slice(0, 3).join("; ")}`);
    }
  }
  return lines.join("\n");
}

/**
 * One differential fuzz run in one permission mode: the real engine judges every generated line (no
 * `canUseTool`, so every "ask" is a denial); the lines it allows without asking run in jails, in
 * batches, and a batch that hit a canary is split and run again until each hit is pinned on a line
 * that does it alone on a fresh copy. A hit only a batch shows (one line's change misleading a later
 * line that the engine judged on the untouched tree) is counted apart: it is not an escape.
 */
import { createPermissionEngine, type PermissionMode } from "../../src/permissions/index.js";
import { findHits } from "./differential-canaries.js";
import { runInJail } from "./differential-jail.js";
import type { FuzzLine } from "./differential-lines.js";
import type { FuzzWorld } from "./differential-world.js";

/** A line that touched a canary by itself. */
export interface Escape {
  mode: PermissionMode;
  line: FuzzLine;
  hits: string[];
  /** The part of `line` that escapes by itself (also allowed alone), when there is one. */
  part?: { line: FuzzLine; hits: string[] };
}

/** The figures of one mode's run. */
export interface ModeFigures {
  generated: number;
  allowed: number;
  ran: number;
  jailRuns: number;
  escapes: Escape[];
  /** Batches that hit after the time for pinning hits ran out: their hits, not pinned on a line. */
  unpinned: Array<{ lines: string[]; hits: string[] }>;
  /** Hits seen only with other lines before them in the same jail. */
  batchOnly: number;
  engineMs: number;
  jailMs: number;
}

/** What the runner needs: bwrap, the world, the jail's environment and the batch size. */
export interface RunSetup {
  bwrap: string;
  world: FuzzWorld;
  env: Record<string, string>;
  batchSize: number;
  /**
   * Milliseconds a mode may spend pinning hits on lines (a jail per half batch); after that each
   * batch runs once and its hits are reported unpinned, so a badly leaking analysis cannot make
   * the suite run for many minutes.
   */
  pinBudgetMs: number;
}

/** The engine of a mode, as a predicate: true when it allows the line without asking. */
export function engineAllows(world: FuzzWorld, mode: PermissionMode): (text: string) => Promise<boolean> {
  const engine = createPermissionEngine({ cwd: world.project, mode });
  const signal = new AbortController().signal;
  let n = 0;
  return async (text) => {
    const decision = await engine.decide({
      toolName: "Bash",
      input: { command: text },
      sideEffect: "mutating",
      toolUseID: `toolu_fuzz_${n++}`,
      signal,
    });
    return decision.behavior === "allow";
  };
}

/** Runs `lines` in one jail; returns the hits (`readOnly`: the mode promised the project would not change). */
export async function hitsOf(
  setup: RunSetup,
  lines: readonly string[],
  readOnly: boolean,
): Promise<string[]> {
  const states = await runInJail(setup.bwrap, setup.world, setup.env, lines);
  return findHits(states, setup.world, readOnly);
}

/**
 * The lines of a batch that hit a canary on their own, found by halving: each half runs on a fresh
 * copy; a half without hits is cleared. `onRun` counts jail runs.
 */
export async function locateCulprits(
  setup: RunSetup,
  lines: readonly FuzzLine[],
  readOnly: boolean,
  onRun: () => void,
): Promise<{ culprits: Array<{ line: FuzzLine; hits: string[] }>; batchOnly: number }> {
  const found: Array<{ line: FuzzLine; hits: string[] }> = [];
  let batchOnly = 0;
  const search = async (group: readonly FuzzLine[], hits: string[]): Promise<void> => {
    if (group.length === 1) {
      found.push({ line: group[0], hits: hits.map((h) => h.replace(/^output of line 0/, "output")) });
      return;
    }
    const middle = Math.ceil(group.length / 2);
    let explained = false;
    for (const half of [group.slice(0, middle), group.slice(middle)]) {
      onRun();
      const halfHits = await hitsOf(
        setup,
        half.map((l) => l.text),
        readOnly,
      );
      if (halfHits.length > 0) {
        explained = true;
        await search(half, halfHits);
      }
    }
    if (!explained) batchOnly++;
  };
  onRun();
  const first = await hitsOf(
    setup,
    lines.map((l) => l.text),
    readOnly,
  );
  if (first.length > 0) await search(lines, first);
  return { culprits: found, batchOnly };
}

/** The first part of a line of several that the engine allows alone and that escapes alone. */
async function escapingPart(
  setup: RunSetup,
  allows: (text: string) => Promise<boolean>,
  line: FuzzLine,
  readOnly: boolean,
): Promise<Escape["part"]> {
  for (const part of line.parts ?? []) {
    if (!(await allows(part.text))) continue;
    const hits = await hitsOf(setup, [part.text], readOnly);
    if (hits.length > 0)
      return { line: part, hits: hits.map((h) => h.replace(/^output of line 0/, "output")) };
  }
  return undefined;
}

/** Judges `lines` in `mode`, runs the allowed ones in batches and pins every hit on its line. */
export async function fuzzMode(
  setup: RunSetup,
  mode: PermissionMode,
  lines: FuzzLine[],
): Promise<ModeFigures> {
  const t0 = performance.now();
  const allows = engineAllows(setup.world, mode);
  const allowed: FuzzLine[] = [];
  for (const line of lines) if (await allows(line.text)) allowed.push(line);
  const t1 = performance.now();
  // The same text twice proves nothing new; run each once.
  const unique = [...new Map(allowed.map((l) => [l.text, l])).values()];
  const figures: ModeFigures = {
    generated: lines.length,
    allowed: allowed.length,
    ran: unique.length,
    jailRuns: 0,
    escapes: [],
    unpinned: [],
    batchOnly: 0,
    engineMs: t1 - t0,
    jailMs: 0,
  };
  const readOnly = mode === "default";
  const pinUntil = t1 + setup.pinBudgetMs;
  for (let i = 0; i < unique.length; i += setup.batchSize) {
    const batch = unique.slice(i, i + setup.batchSize);
    if (performance.now() > pinUntil) {
      figures.jailRuns++;
      const texts = batch.map((l) => l.text);
      const hits = await hitsOf(setup, texts, readOnly);
      if (hits.length > 0) figures.unpinned.push({ lines: texts, hits });
      continue;
    }
    const { culprits, batchOnly } = await locateCulprits(setup, batch, readOnly, () => figures.jailRuns++);
    figures.batchOnly += batchOnly;
    for (const c of culprits) {
      figures.escapes.push({ mode, ...c, part: await escapingPart(setup, allows, c.line, readOnly) });
      figures.jailRuns += c.line.parts?.length ?? 0;
    }
  }
  figures.jailMs = performance.now() - t1;
  return figures;
}

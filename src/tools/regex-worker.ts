/**
 * Runs a model-supplied regular expression off the main thread, within a time limit.
 *
 * JavaScript's regex engine backtracks: `(a+)+$` on a long line of a's, or `(x+x+)+y`, takes
 * exponential time, and on the main thread that freezes the whole process (timers, the model's
 * stream, even SIGTERM) for minutes. Here each task runs in its own worker thread, which
 * `terminate()` stops mid-match (V8 interrupts the regex), so an abort or the time limit ends the
 * call at once and the main thread stays free throughout. A worker per task costs a few tens of
 * milliseconds of start-up, paid only by the built-in Grep (used when ripgrep is absent) and a
 * filtered BashOutput.
 */
import { Worker } from "node:worker_threads";
import { type RegexTask, type RegexTaskResult, regexWorkerMain } from "./regex-worker-main.js";

/** How long one regex task may run when nothing else is set: 30 s. */
export const DEFAULT_REGEX_TIME_LIMIT_MS = 30_000;

/** The time limit: `GOAT_REGEX_TIME_LIMIT_MS` when it is a positive integer, else the default. */
export function regexTimeLimitFrom(env: Record<string, string | undefined>): number {
  const value = Number(env.GOAT_REGEX_TIME_LIMIT_MS);
  return Number.isSafeInteger(value) && value > 0 ? value : DEFAULT_REGEX_TIME_LIMIT_MS;
}

/** A regex task passed its time limit and was stopped. The message is written for the model. */
export class RegexTimeLimitError extends Error {
  constructor(readonly limitMs: number) {
    super(
      `The regular expression was stopped after ${formatSeconds(limitMs)}: it took too long. JavaScript's engine backtracks, so nested repetition such as (a+)+ or (x+x+)+y can take exponential time on some lines. Simplify the pattern (no quantified groups that themselves repeat), or narrow the search with path or glob.`,
    );
    this.name = "RegexTimeLimitError";
  }
}

/** The worker's source: the self-contained main function, called with what it needs. */
const WORKER_SOURCE = `"use strict";
const { parentPort } = require("node:worker_threads");
const fs = require("node:fs");
(${regexWorkerMain.toString()})(parentPort, fs);`;

/** Longest a worker may take to start before the search counts as over time anyway. */
const WORKER_START_LIMIT_MS = 10_000;

/**
 * Runs `task` in a new worker. Rejects with `RegexTimeLimitError` after `timeLimitMs`, with the
 * signal's reason when `signal` aborts (the worker is terminated either way), and with the worker's
 * own error if it fails.
 */
export function runRegexTask(
  task: RegexTask,
  options: { timeLimitMs: number; signal?: AbortSignal },
): Promise<RegexTaskResult> {
  const { timeLimitMs, signal } = options;
  signal?.throwIfAborted();
  return new Promise((resolve, reject) => {
    const worker = new Worker(WORKER_SOURCE, { eval: true });
    let settled = false;
    const settle = (outcome: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
      // Also stops a worker still matching; nothing waits for the exit.
      void worker.terminate();
      outcome();
    };
    const overTime = () => settle(() => reject(new RegexTimeLimitError(timeLimitMs)));
    // The limit is the search's: it starts when the worker runs, not while a loaded machine is still
    // starting its thread (which took longer than a 400 ms limit, and an ordinary pattern failed).
    let timer = setTimeout(overTime, Math.max(WORKER_START_LIMIT_MS, timeLimitMs));
    worker.once("online", () => {
      clearTimeout(timer);
      timer = setTimeout(overTime, timeLimitMs);
    });
    const onAbort = () => settle(() => reject(signal?.reason ?? new Error("aborted")));
    signal?.addEventListener("abort", onAbort, { once: true });
    worker.once("message", (result: RegexTaskResult) => settle(() => resolve(result)));
    worker.once("error", (err) => settle(() => reject(err)));
    worker.once("exit", (code) =>
      settle(() => reject(new Error(`The regex worker exited (code ${code}) without an answer.`))),
    );
    worker.postMessage(task);
  });
}

function formatSeconds(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`;
}

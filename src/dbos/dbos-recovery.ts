/**
 * The one place Goat uses DBOS internals:
 * - recovering the pending workflows of ANOTHER executor id. DBOS Transact's public API recovers only
 *   the launching executor's own workflows (at `DBOS.launch`); a dead worker's sessions are handed
 *   back by DBOS's executor class;
 * - polling a queue now, when a session was queued, instead of at the queue runner's next poll (the
 *   runner has no public wake-up).
 * The package exports these only under `@dbos-inc/dbos-sdk/internal/…` (no semver promise). Keeping
 * them here means a DBOS upgrade that moves them breaks one file: `test/dbos/dbos-recovery.test.ts`
 * fails without a database when an import or a method is gone, and a worker refuses to start
 * (`checkDbosRecovery`) rather than run without takeover, where dead workers' sessions would silently
 * stay pending forever.
 */
import { DBOSExecutor } from "@dbos-inc/dbos-sdk/internal/dbos-executor";
import { wfQueueRunner } from "@dbos-inc/dbos-sdk/internal/wfqueue";
import { GoatError } from "../errors.js";

/** The DBOS versions this was checked against (the peer dependency's range in package.json). */
const CHECKED_RANGE = ">=5.3.0 <6";

/** Throws when the DBOS installed no longer has the internal recovery this file relies on. */
export function checkDbosRecovery(): void {
  if (typeof (queueRunner() as Partial<QueueRunner>)?.pollQueue !== "function")
    throw new GoatError(
      `The installed @dbos-inc/dbos-sdk has no queue runner with pollQueue (Goat's durable workers use it to start a queued session at once; checked with ${CHECKED_RANGE}).`,
      { code: "dbos_incompatible" },
    );
  if (typeof DBOSExecutor?.prototype?.recoverPendingWorkflows !== "function")
    throw new GoatError(
      `The installed @dbos-inc/dbos-sdk has no DBOSExecutor.recoverPendingWorkflows (Goat's durable workers use it to take over a dead worker's sessions; checked with ${CHECKED_RANGE}).`,
      { code: "dbos_incompatible" },
    );
}

/**
 * Hands the pending workflows of `executorIds` back to their queues, through DBOS's own recovery, so
 * any live worker picks them up. Call after `DBOS.launch()`.
 */
export async function recoverExecutorsWorkflows(executorIds: readonly string[]): Promise<void> {
  const executor = DBOSExecutor.globalInstance;
  if (!executor) throw new GoatError("DBOS is not launched in this process.", { code: "dbos_not_launched" });
  await executor.recoverPendingWorkflows([...executorIds]);
}

/** The queue runner's members used here (private in DBOS's types). */
interface QueueRunner {
  isRunning: boolean;
  states: Map<string, { queue: { name: string } }>;
  pollQueue(executor: DBOSExecutor, queue: { name: string }): Promise<boolean>;
}
const queueRunner = () => wfQueueRunner as unknown as QueueRunner;
let pollsSerialized = false;

/**
 * Polls the queue now (when DBOS runs), as the runner's own poll would. Polls of
 * one queue are made to run one at a time, the runner's and these: each counts this process's running
 * sessions before claiming more, and two at once would both claim up to the worker's limit.
 */
export async function pollQueueNow(registered: { name: string }): Promise<void> {
  const runner = queueRunner();
  const executor = DBOSExecutor.globalInstance;
  if (!runner.isRunning || !executor) return;
  // The runner's copy, refreshed from the database each second; the registered one until it has one.
  await runner.pollQueue(executor, runner.states.get(registered.name)?.queue ?? registered);
}

/** Makes polls of one queue run one at a time (see `pollQueueNow`); call before `DBOS.launch`. */
export function serializeQueuePolls(): void {
  const runner = queueRunner();
  if (pollsSerialized) return;
  pollsSerialized = true;
  const poll = runner.pollQueue.bind(runner);
  const last = new Map<string, Promise<unknown>>();
  runner.pollQueue = (executor, queue) => {
    const next = (last.get(queue.name) ?? Promise.resolve()).then(() => poll(executor, queue));
    last.set(
      queue.name,
      next.catch(() => {}),
    );
    return next;
  };
}

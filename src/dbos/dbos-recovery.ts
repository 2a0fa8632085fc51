/**
 * The one place Goat uses a DBOS internal: recovering the pending workflows of ANOTHER executor id.
 * DBOS Transact's public API recovers only the launching executor's own workflows (at `DBOS.launch`);
 * a dead worker's sessions are handed back by DBOS's executor class, which the package exports only
 * under `@dbos-inc/dbos-sdk/internal/…` (no semver promise). Keeping it here means a DBOS upgrade that
 * moves it breaks one file: `test/dbos/dbos-recovery.test.ts` fails without a database when the
 * import or the method is gone, and a worker refuses to start (`checkDbosRecovery`) rather than run
 * without takeover, where dead workers' sessions would silently stay pending forever.
 */
import { DBOSExecutor } from "@dbos-inc/dbos-sdk/internal/dbos-executor";
import { GoatError } from "../errors.js";

/** The DBOS versions this was checked against (the peer dependency's range in package.json). */
const CHECKED_RANGE = ">=5.3.0 <6";

/** Throws when the DBOS installed no longer has the internal recovery this file relies on. */
export function checkDbosRecovery(): void {
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

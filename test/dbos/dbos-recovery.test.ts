/**
 * The DBOS internal that durable workers rely on to take over a dead worker's sessions
 * (`src/dbos/dbos-recovery.ts`). No database needed: this file fails as soon as a DBOS upgrade moves
 * or removes the internal, before any crash-recovery test would show sessions staying pending.
 */
import { DBOSExecutor } from "@dbos-inc/dbos-sdk/internal/dbos-executor";
import { describe, expect, it } from "vitest";
import { checkDbosRecovery, recoverExecutorsWorkflows } from "../../src/dbos/dbos-recovery.js";

describe("DBOS's internal recovery of another executor's workflows", () => {
  it("is there in the installed DBOS", () => {
    expect(typeof DBOSExecutor.prototype.recoverPendingWorkflows).toBe("function");
    expect(() => checkDbosRecovery()).not.toThrow();
  });

  it("a DBOS without it stops a worker at start with a message that says why", () => {
    const saved = DBOSExecutor.prototype.recoverPendingWorkflows;
    try {
      (DBOSExecutor.prototype as { recoverPendingWorkflows?: unknown }).recoverPendingWorkflows = undefined;
      expect(() => checkDbosRecovery()).toThrow(/no DBOSExecutor.recoverPendingWorkflows/);
    } finally {
      DBOSExecutor.prototype.recoverPendingWorkflows = saved;
    }
  });

  it("refuses to recover before DBOS is launched, instead of doing nothing", async () => {
    await expect(recoverExecutorsWorkflows(["dead-executor"])).rejects.toThrow(/not launched/);
  });
});

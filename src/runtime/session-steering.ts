/**
 * Messages the host sends into a running session (`steer`): queued for the loop's next look at its
 * steering, before those the `getSteeringMessages` option gives. An urgent one also stops the tools
 * still running.
 */
import type { AgentMessage } from "../loop/events.js";
import type { LoopConfig } from "../loop/loop-config.js";

/** The host's steering queue. */
export interface SessionSteering {
  /** Queues `message`; `interruptTools` also stops the tools of the turn in progress. */
  push(message: AgentMessage, interruptTools: boolean): void;
  /** The loop's `getSteeringMessages`: the queue (emptied), then the option's. */
  readonly take: NonNullable<LoopConfig["getSteeringMessages"]>;
  /** The loop's `steeringInterruptsTools`: true while an urgent message is queued. */
  readonly interruptsTools: NonNullable<LoopConfig["steeringInterruptsTools"]>;
}

/** An empty queue in front of the option's own steering. */
export function createSessionSteering(fromOption: LoopConfig["getSteeringMessages"]): SessionSteering {
  const queue: AgentMessage[] = [];
  let urgent = false;
  return {
    push(message, interruptTools) {
      queue.push(message);
      if (interruptTools) urgent = true;
    },
    take: async () => {
      const given = (await fromOption?.()) ?? [];
      const queued = queue.splice(0);
      urgent = false;
      return [...queued, ...given];
    },
    interruptsTools: () => urgent,
  };
}

/**
 * The runtime's one late-bound seam. A session's services form cycles no build order breaks:
 * - the sandbox and confinement read the permission engine's directories, the hooks its mode, the
 *   tools its named rules (WebFetch's hosts, a skill's allowed-tools), and the engine is built from
 *   them (whether Bash is the sandboxed one, the hooks it asks, the prompt tool among the tools);
 * - the subagent host hands a subagent the loop's config and the tool list, which hold the Task tool
 *   that was built with the host.
 * The early service reads the later one through this record, on a call while the session runs and
 * never while it is being built; `createRuntime` binds each entry once, as soon as it is built. A read
 * before that is a bug in the wiring, and throws.
 */
import type { LoopConfig } from "../loop/loop-config.js";
import type { PermissionEngine } from "../permissions/engine.js";
import type { SessionTools } from "./session-tools.js";

/** The services some earlier service reads. */
interface LateServices {
  permissions: PermissionEngine;
  tools: SessionTools;
  loopConfig: LoopConfig;
}

/** Each late service as a function, and the one place that binds it. */
export type LateSeam = { readonly [K in keyof LateServices]: () => LateServices[K] } & {
  bind<K extends keyof LateServices>(key: K, service: LateServices[K]): void;
};

/** A seam with nothing bound yet. */
export function createLateSeam(): LateSeam {
  const bound: Partial<LateServices> = {};
  const reader =
    <K extends keyof LateServices>(key: K) =>
    (): LateServices[K] => {
      const service = bound[key];
      if (service === undefined)
        throw new Error(`Goat internal error: the session's ${key} was read before it was built`);
      return service as LateServices[K];
    };
  return {
    permissions: reader("permissions"),
    tools: reader("tools"),
    loopConfig: reader("loopConfig"),
    bind(key, service) {
      if (bound[key] !== undefined)
        throw new Error(`Goat internal error: the session's ${key} was bound twice`);
      bound[key] = service;
    },
  };
}

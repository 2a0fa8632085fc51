/**
 * Loads the markdown and diff renderers once, on demand: they take tens of milliseconds to load, and
 * `goat` must show its prompt first. The interactive mode starts the load on the first prompt, while
 * the model thinks; the renderer waits for it only if an answer arrives sooner.
 */

/** The rich renderers' module. */
export type Rich = typeof import("./rich/index.js");

let loading: Promise<Rich> | undefined;
let loaded: Rich | undefined;
let failed = false;

/** Starts loading (once) and resolves with the module. */
export function loadRich(): Promise<Rich> {
  loading ??= import("./rich/index.js").then(
    (m) => {
      loaded = m;
      return m;
    },
    (error) => {
      failed = true;
      throw error;
    },
  );
  return loading;
}

/** Whether loading failed (answers are then shown as written). */
export function richFailed(): boolean {
  return failed;
}

/** The module if it has loaded, else undefined. */
export function richIfLoaded(): Rich | undefined {
  return loaded;
}

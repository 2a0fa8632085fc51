/**
 * Loads the markdown and diff renderers once, on demand: they take tens of milliseconds to load, and
 * `goat` must show its prompt first. The interactive mode starts the load on the first prompt, while
 * the model thinks; the renderer waits for it only if an answer arrives sooner.
 */

/** The rich renderers' module. */
export type Rich = typeof import("./rich/index.js");

let loading: Promise<Rich> | undefined;
let loaded: Rich | undefined;

/** Starts loading (once) and resolves with the module. */
export function loadRich(): Promise<Rich> {
  loading ??= import("./rich/index.js").then((m) => {
    loaded = m;
    return m;
  });
  return loading;
}

/** The module if it has loaded, else undefined. */
export function richIfLoaded(): Rich | undefined {
  return loaded;
}

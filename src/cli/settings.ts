/**
 * The CLI's settings files: the loader lives in `src/settings/`, shared with `query()`'s
 * `settingSources` and `settings` options, so both read the same files with the same precedence.
 */
export {
  type CliSettings,
  goatHomeDir,
  inlineSettings,
  loadSettings,
  mergeSettings,
} from "../settings/index.js";

/**
 * `goat-agent/testing`: test your agent offline. Record a real provider's traffic once and replay it
 * deterministically (`startRecorder`, `startReplayer`).
 */
export {
  type Cassette,
  type CassetteInteraction,
  type CassetteRecorder,
  type CassetteReplayer,
  REDACTED_HEADERS,
  type RecorderOptions,
  type ReplayerOptions,
  startRecorder,
  startReplayer,
  withoutSystemPrompt,
} from "./cassette.js";

/**
 * `goat-agent/testing`: test your agent offline. A scripted model in memory (`scriptedModel`: no HTTP,
 * for tests of what the agent does), a scripted mock provider speaking every wire Goat speaks over HTTP
 * (`startMockProvider`: for tests of what goes on the wire), both scripted with the same `reply`
 * builders, and record/replay of a real provider's traffic (`startRecorder`, `startReplayer`).
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
export {
  type MockProvider,
  startMockProvider,
} from "./mock-provider.js";
export {
  type DeliveryOptions,
  type ErrorReply,
  type HangupReply,
  type MessageOptions,
  type MessageReply,
  type MockBlock,
  type MockFormat,
  type MockRequest,
  type MockStopReason,
  type MockToolCall,
  type RawReply,
  type Reply,
  reply,
} from "./mock-replies.js";
export {
  type HeldReply,
  held,
  type ScriptedModel,
  type ScriptedModelOptions,
  type ScriptedStep,
  scriptedModel,
} from "./scripted-model.js";

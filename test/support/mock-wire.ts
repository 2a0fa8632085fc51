/** Wire rendering of the mock provider's replies, for tests that write streams by hand. */
export * from "../../src/testing/mock-wire.js";

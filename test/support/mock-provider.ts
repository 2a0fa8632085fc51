/** The tests' mock provider is the one users get from `goat-agent/testing`. */
export * from "../../src/testing/mock-provider.js";

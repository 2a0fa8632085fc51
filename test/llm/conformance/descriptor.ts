/**
 * What the conformance suite needs to know of one provider: how to point it at the mock, and where
 * its wire carries the things a scenario checks were sent (tool results, images, thinking, the
 * credential). A provider joins the suite with its mock wire (src/testing/mock-wire-*.ts) and one
 * descriptor file in ./providers/, listed in ./providers/index.ts.
 */

import type { Provider, ProviderOptions } from "../../../src/llm/types.js";
import type { MockRequest } from "../../../src/testing/mock-replies.js";

/** One provider under the conformance suite. */
export interface ConformanceDescriptor {
  /** Shown in test names. */
  name: string;
  /** The provider's name, as `provider/model` ids and messages show it. */
  providerName: string;
  /** The model id to call. */
  model: string;
  /** The wire format the mock sees (MockRequest.format). */
  format: string;
  /** Creates the provider with the mock's (or a recorder's) origin, `http://127.0.0.1:PORT`. */
  create(origin: string, options?: ProviderOptions): Provider;
  /** The credential a request carried (key or token, without `Bearer `). */
  credentialOf(request: MockRequest): string | undefined;
  /** The call ids of the tool results a request body sends. */
  sentToolResults(body: any): string[];
  /** The base64 data of the images a request body sends. */
  sentImages(body: any): string[];
  /**
   * The reasoning a request body carries back from earlier turns (signatures, encrypted content), or
   * undefined when the wire has no way to carry it (Chat Completions).
   */
  sentThinking?(body: any): string[];
  /** The HTTP status the API answers when overloaded (529 Anthropic, 503 the others). */
  overloadStatus: number;
}

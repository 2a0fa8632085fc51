/** Our SigV4 signer against AWS's published test-suite signatures (aws-sig-v4-test-suite, service "service"). */
import { describe, expect, it } from "vitest";
import { signRequest } from "../../src/llm/aws-sigv4.js";

const credentials = {
  accessKeyId: "AKIDEXAMPLE",
  secretAccessKey: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY",
};
const date = new Date("2015-08-30T12:36:00Z");

function sign(method: string, url: string, body = "", headers: Record<string, string> = {}) {
  return signRequest({
    method,
    url: new URL(url),
    headers: { host: "example.amazonaws.com", ...headers },
    body,
    region: "us-east-1",
    service: "service",
    credentials,
    date,
    payloadHashHeader: false,
  }).authorization;
}

const prefix =
  "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/service/aws4_request, SignedHeaders=host;x-amz-date, Signature=";

describe("SigV4 against AWS's test vectors", () => {
  it("get-vanilla", () => {
    expect(sign("GET", "https://example.amazonaws.com/")).toBe(
      `${prefix}5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31`,
    );
  });

  it("post-vanilla", () => {
    expect(sign("POST", "https://example.amazonaws.com/")).toBe(
      `${prefix}5da7c1a2acd57cee7505fc6676e4e544621c30862966e37dddb68e92efbe5d6b`,
    );
  });

  it("get-vanilla-query-order-key-case (the query is sorted before signing)", () => {
    expect(sign("GET", "https://example.amazonaws.com/?Param2=value2&Param1=value1")).toBe(
      `${prefix}b97d918cfa904a5beff61c982a1b6f458b799221646efd99d3219ec94cdf2500`,
    );
  });

  it("signs the session token and the payload hash when asked, and a changed body changes the signature", () => {
    const base = {
      method: "POST",
      url: new URL("https://bedrock-runtime.us-east-1.amazonaws.com/model/a%3Ab/invoke"),
      headers: { "content-type": "application/json" },
      region: "us-east-1",
      service: "bedrock",
      credentials: { ...credentials, sessionToken: "session-1" },
      date,
    };
    const a = signRequest({ ...base, body: "{}" });
    expect(a.authorization).toMatch(
      /SignedHeaders=content-type;host;x-amz-content-sha256;x-amz-date;x-amz-security-token,/,
    );
    expect(a["x-amz-security-token"]).toBe("session-1");
    expect(a["x-amz-content-sha256"]).toBe(
      "44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a",
    );
    expect(signRequest({ ...base, body: "{ }" }).authorization).not.toBe(a.authorization);
  });
});

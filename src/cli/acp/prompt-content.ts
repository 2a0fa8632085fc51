/**
 * An ACP prompt (text, images, embedded resources, resource links) as the content of a Goat user
 * message. What the client sends is the user's (or a file's) and goes to the model as data: an
 * embedded file is framed with its URI so the model can tell it from the prompt's own words.
 */
import type { ContentBlock as AcpContentBlock } from "@agentclientprotocol/sdk";
import type { ContentBlock, ImageBlock } from "../../index.js";

const IMAGE_TYPES: ReadonlySet<string> = new Set(["image/png", "image/jpeg", "image/gif", "image/webp"]);

/** Thrown for content the agent did not advertise (audio) or cannot send (an image of another type). */
export class UnsupportedContentError extends Error {}

/** The user message's content for `prompt`. */
export function promptContent(prompt: readonly AcpContentBlock[]): ContentBlock[] {
  const content: ContentBlock[] = [];
  for (const block of prompt) {
    switch (block.type) {
      case "text":
        content.push({ type: "text", text: block.text });
        break;
      case "image":
        content.push(imageBlock(block.mimeType, block.data));
        break;
      case "resource_link":
        // The client names a file without its text: the model can read it with its tools.
        content.push({ type: "text", text: `@${pathOfUri(block.uri)}` });
        break;
      case "resource": {
        const resource = block.resource;
        if ("text" in resource) {
          content.push({
            type: "text",
            text: `<context ref="${escapeAttribute(resource.uri)}">\n${resource.text}\n</context>`,
          });
        } else if (resource.mimeType && IMAGE_TYPES.has(resource.mimeType)) {
          content.push(imageBlock(resource.mimeType, resource.blob));
        } else {
          throw new UnsupportedContentError(
            `the embedded resource ${resource.uri} is binary (${resource.mimeType ?? "no type"}); only text and images can be sent`,
          );
        }
        break;
      }
      case "audio":
        throw new UnsupportedContentError(
          "audio prompts are not supported (promptCapabilities.audio is false)",
        );
    }
  }
  return content;
}

function imageBlock(mimeType: string, data: string): ImageBlock {
  if (!IMAGE_TYPES.has(mimeType)) {
    throw new UnsupportedContentError(`image type ${mimeType} is not supported (png, jpeg, gif, webp are)`);
  }
  return {
    type: "image",
    source: { type: "base64", media_type: mimeType as "image/png", data },
  };
}

/** `file:///a/b.ts` as `/a/b.ts`; other URIs unchanged. */
function pathOfUri(uri: string): string {
  if (!uri.startsWith("file://")) return uri;
  try {
    return decodeURIComponent(new URL(uri).pathname);
  } catch {
    return uri;
  }
}

/** A URI inside the frame's attribute: a quote or angle bracket in it cannot end the frame early. */
function escapeAttribute(value: string): string {
  return value.replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

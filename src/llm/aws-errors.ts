/**
 * Bedrock's errors in Goat's kinds. Bedrock names each error by its exception, in the `x-amzn-ErrorType`
 * header of an HTTP error and in the `:exception-type` header of an in-stream exception frame; the
 * name says more than the status (a 503 ServiceUnavailableException is an overloaded model, a 424
 * ModelErrorException the model's own failure, a 408 ModelTimeoutException a timeout).
 */
import { isContextOverflowMessage, type ProviderErrorKind } from "./errors.js";

/**
 * The kind for an AWS exception name (`ThrottlingException`, `throttlingException`, or the header's
 * `ThrottlingException:http://…` form), undefined for a name it does not know.
 */
export function kindForAwsException(type: string, message: string): ProviderErrorKind | undefined {
  switch (type.replace(/:.*$/, "").toLowerCase()) {
    case "throttlingexception":
    case "toomanyrequestsexception":
    case "servicequotaexceededexception":
      return "rate_limit";
    case "serviceunavailableexception":
    case "modelnotreadyexception":
      return "overloaded";
    case "internalserverexception":
    case "modelstreamerrorexception":
    case "modelerrorexception":
      return "server";
    case "modeltimeoutexception":
      return "timeout";
    case "validationexception":
      return isContextOverflowMessage(message) ? "context_overflow" : "invalid_request";
    case "accessdeniedexception":
    case "unrecognizedclientexception":
    case "expiredtokenexception":
    case "invalidsignatureexception":
    case "incompletesignatureexception":
      return "authentication";
    case "resourcenotfoundexception":
      return "not_found";
    default:
      return undefined;
  }
}

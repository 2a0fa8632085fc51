/**
 * JSON Schema's `format` keyword for the formats schemas use in practice (RFC 3339 dates and times,
 * ISO 8601 durations, e-mail, hostname, IP addresses, URI, UUID, regex). Goat has one JSON Schema
 * validator (`json-schema-validator.ts`), so a tool's input and structured output agree on what
 * `"format": "date-time"` accepts. A format not listed here constrains nothing, as the specification
 * allows for formats an implementation does not know.
 */

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const TIME = /^(\d{2}):(\d{2}):(\d{2})(\.\d+)?(z|[+-](\d{2}):(\d{2}))$/i;
const DURATION = /^P(?!$)(\d+Y)?(\d+M)?(\d+W)?(\d+D)?(T(?=\d)(\d+H)?(\d+M)?(\d+(\.\d+)?S)?)?$/;
const EMAIL =
  /^[a-z0-9!#$%&'*+/=?^_`{|}~-]+(\.[a-z0-9!#$%&'*+/=?^_`{|}~-]+)*@([a-z0-9]([a-z0-9-]*[a-z0-9])?\.)+[a-z0-9]([a-z0-9-]*[a-z0-9])?$/i;
const HOST_LABEL = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/i;
const IPV4 = /^((25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.){3}(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)$/;
const UUID = /^(urn:uuid:)?[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const URI_SCHEME = /^[a-z][a-z0-9+.-]*:/i;
const DAYS_IN_MONTH = [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

function isDate(text: string): boolean {
  const m = DATE.exec(text);
  if (!m) return false;
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (month < 1 || month > 12 || day < 1 || day > DAYS_IN_MONTH[month - 1]) return false;
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  return month !== 2 || day <= 28 || leap;
}

/** RFC 3339 `full-time`: the offset is required; second 60 is a leap second. */
function isTime(text: string): boolean {
  const m = TIME.exec(text);
  if (!m) return false;
  const [hour, minute, second] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const offsetOk = m[6] === undefined || (Number(m[6]) <= 23 && Number(m[7]) <= 59);
  return hour <= 23 && minute <= 59 && second <= 60 && offsetOk;
}

function isDateTime(text: string): boolean {
  const parts = text.split(/[tT ]/);
  return parts.length === 2 && isDate(parts[0]) && isTime(parts[1]);
}

function isHostname(text: string): boolean {
  const host = text.endsWith(".") ? text.slice(0, -1) : text;
  return host.length > 0 && host.length <= 253 && host.split(".").every((label) => HOST_LABEL.test(label));
}

function isIpv6(text: string): boolean {
  // The URL parser knows IPv6 literals; a zone (`%eth0`) is not part of the format.
  if (!text.includes(":") || /[^0-9a-f:.]/i.test(text)) return false;
  return URL.canParse(`http://[${text}]/`);
}

function isRegex(text: string): boolean {
  try {
    new RegExp(text, "u");
    return true;
  } catch {
    return false;
  }
}

const CHECKS: Readonly<Record<string, (text: string) => boolean>> = {
  date: isDate,
  time: isTime,
  "date-time": isDateTime,
  duration: (text) => DURATION.test(text),
  email: (text) => EMAIL.test(text),
  hostname: isHostname,
  ipv4: (text) => IPV4.test(text),
  ipv6: isIpv6,
  uri: (text) => URI_SCHEME.test(text) && !/\s/.test(text) && URL.canParse(text),
  "uri-reference": (text) => !/\s/.test(text),
  uuid: (text) => UUID.test(text),
  regex: isRegex,
};

/**
 * Whether `text` has the named format. Only strings are checked (JSON Schema applies `format` to
 * strings); an unknown format name is satisfied.
 */
export function matchesFormat(format: string, text: string): boolean {
  const checkFormat = Object.hasOwn(CHECKS, format) ? CHECKS[format] : undefined;
  return checkFormat === undefined || checkFormat(text);
}

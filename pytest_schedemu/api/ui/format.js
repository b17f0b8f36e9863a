// How the page writes times, numbers, ARNs and payloads.

export function when(text) {
  return text ? text.replace("T", " ") : "–";
}

export function number(value) {
  return Number(value).toLocaleString("en-US");
}

export function scheduleOf(arn) {
  return (arn || "").split(":schedule/")[1] || arn || "";
}

export function lastPart(arn) {
  const parts = (arn || "").split(/[:/]/);
  return parts[parts.length - 1] || arn;
}

export function pretty(value, text) {
  if (value !== null && value !== undefined && typeof value === "object") {
    return JSON.stringify(value, null, 2);
  }
  return text === null || text === undefined ? "(none)" : String(text);
}

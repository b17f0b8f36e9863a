// How the page writes times, numbers, ARNs and payloads.

export function when(text) {
  return text ? text.replace("T", " ") : "–";
}

export function number(value) {
  return Number(value).toLocaleString("en-US");
}

// A schedule's group/name, or a scheduled rule's target as "rule <name> → <target id>"
// (its records' key is "<rule ARN>#<target id>").
export function scheduleOf(arn) {
  const text = arn || "";
  const rule = /:rule\/(?:.+\/)?([^/#]+)#(.+)$/.exec(text);
  if (rule) return `rule ${rule[1]} → ${rule[2]}`;
  return text.split(":schedule/")[1] || text;
}

// What made a record, as a person reads it: a schedule's group/name, or a rule's target
// (whose records name no schedule).
export function madeBy(record) {
  if (record.source === "rule") return `rule ${record.rule_name} → ${record.target_id}`;
  return scheduleOf(record.schedule_arn);
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

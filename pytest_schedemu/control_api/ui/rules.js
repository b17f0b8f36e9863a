// The stored EventBridge rules, with their targets: what each fires on, whether the clock
// fires it, when next, and what its newest occurrence did. A scheduled rule's targets can
// be run now, one by one or all at once (they share the rule's one event); a rule with only
// an EventPattern has no event of its own to run. The sidebar's account, region, state and
// name filters apply; schedule groups do not hold rules.

import { api, post, query } from "./api.js";
import { $, el, showStatus } from "./dom.js";
import { lastPart, number, when } from "./format.js";
import { state } from "./state.js";

const LIMIT = 100;
// The rule states the filter's choices name; "Deleted" lists no rule (none is kept).
const RULE_STATES = ["ENABLED", "DISABLED"];
// How an occurrence's status reads in a target's line.
const STATUS_WORDS = {
  success: "delivered",
  retrying: "retrying",
  invocation_error: "failed",
  cancelled: "cancelled",
};

export async function refreshRules() {
  const sequence = ++state.sequence.rules;
  const { account_id, region, prefix } = state.filters;
  const chosen = state.filters.state;
  let answer = { rules: [], total: 0, next_token: null };
  if (!chosen || RULE_STATES.includes(chosen)) {
    const params = { account_id, region, prefix, state: chosen, limit: LIMIT };
    answer = await api("rules" + query(params));
  }
  if (sequence !== state.sequence.rules) return;
  $("rules").tBodies[0].replaceChildren(...answer.rules.map(ruleRow));
  $("rules-empty").hidden = answer.rules.length > 0;
  $("rules-range").textContent = answer.rules.length
    ? `${number(answer.rules.length)} of ${number(answer.total)}`
    : "";
  const more = $("rules-more");
  more.hidden = !answer.next_token;
  more.textContent = answer.next_token
    ? `Showing the first ${number(answer.rules.length)} of ${number(answer.total)} rules: filter by account, region or name.`
    : "";
}

function ruleRow(rule) {
  const scheduled = rule.schedule_expression !== null;
  return el(
    "tr",
    { "data-rule-arn": rule.arn, title: rule.arn },
    el(
      "td",
      {},
      el("span", { className: "schedule-name" }, rule.name),
      rule.description ? el("span", { className: "local" }, rule.description) : null,
      rule.stack
        ? el(
            "span",
            { className: "local", title: "defined by this stack's resource" },
            `${rule.stack} · ${rule.logical_id}`
          )
        : null
    ),
    scheduled
      ? el("td", { className: "mono" }, rule.schedule_expression)
      : el("td", { className: "muted", title: rule.event_pattern }, "event pattern"),
    el("td", {}, el("span", { className: "badge " + rule.state }, rule.state.toLowerCase())),
    rule.next_occurrence
      ? el("td", { className: "when" }, when(rule.next_occurrence))
      : el("td", { className: "when muted" }, "none"),
    el("td", { className: "rule-targets" }, ...targetLines(rule, scheduled)),
    runAllCell(rule, scheduled)
  );
}

function targetLines(rule, scheduled) {
  if (!rule.targets.length) return [el("span", { className: "muted" }, "no targets")];
  return rule.targets.map((target) =>
    el(
      "div",
      { className: "rule-target", "data-target-id": target.id },
      el(
        "div",
        { className: "rule-target-text" },
        el("span", { className: "target-id" }, target.id),
        " ",
        el("span", { className: "arn", title: target.arn }, lastPart(target.arn)),
        el("span", { className: "local" }, lastRun(target.last_execution))
      ),
      scheduled
        ? runButton(
            rule,
            target.id,
            "Run now",
            `Send the rule's event to ${target.id} now, without moving the clock`
          )
        : null
    )
  );
}

function lastRun(execution) {
  if (!execution) return "not run yet";
  const status = STATUS_WORDS[execution.status] || execution.status;
  const by = execution.fired ? ", run by hand" : "";
  return `last ${when(execution.scheduled_time)}: ${status}${by}`;
}

// Every target at once, where there are several: one event, sent to each.
function runAllCell(rule, scheduled) {
  if (!scheduled || rule.targets.length < 2) return el("td", {});
  const title = "Send the rule's event to every target now, without moving the clock";
  return el("td", {}, runButton(rule, "", "Run all", title));
}

function runButton(rule, targetId, label, title) {
  return el(
    "button",
    {
      type: "button",
      className: "run-now",
      "data-fire-rule": rule.name,
      "data-fire-account": rule.account_id,
      "data-fire-region": rule.region,
      "data-fire-target": targetId,
      title: title,
    },
    label
  );
}

// Fires the rule for one target or all (a button's data says which); the clock stays where
// it is. The caller reloads the page.
export async function runRule(button) {
  const data = button.dataset;
  const body = { account_id: data.fireAccount, region: data.fireRegion };
  if (data.fireTarget) body.target_id = data.fireTarget;
  const answer = await post(`rules/${encodeURIComponent(data.fireRule)}/fire`, body);
  const outcomes = answer.attempts.map((attempt) =>
    attempt.succeeded
      ? `${attempt.target_id} delivered`
      : `${attempt.target_id} failed (${attempt.error_code})`
  );
  const failed = answer.attempts.some((attempt) => !attempt.succeeded);
  showStatus(`Ran rule ${data.fireRule} now, at ${when(answer.now)}: ${outcomes.join(", ")}.`, failed);
}

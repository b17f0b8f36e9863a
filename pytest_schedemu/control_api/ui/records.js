// The recent attempts and dead letters, newest first, of every schedule or of the chosen
// one, and the details panel that shows one of them: what was sent, when, and what went
// wrong.

import { api, query } from "./api.js";
import { $, breakable, el } from "./dom.js";
import { lastPart, madeBy, pretty, scheduleOf, when } from "./format.js";
import { state } from "./state.js";

const RECENT = 30;
// What the attempts pane says when it lists none, by the outcome it lists.
const NO_ATTEMPTS = {
  "": "No attempts yet: advance the clock.",
  succeeded: "No delivered attempts.",
  failed: "No failed attempts.",
};

function outcomeOf(attempt) {
  if (attempt.succeeded) return ["delivered", "delivered"];
  return attempt.retryable === false
    ? ["permanent", "failed, permanent"]
    : ["retryable", "failed, retryable"];
}

export async function refreshAttempts() {
  const sequence = ++state.sequence.attempts;
  const answer = await api(
    "attempts" +
      query({ order: "newest", limit: RECENT, schedule: state.selected, outcome: state.outcome })
  );
  if (sequence !== state.sequence.attempts) return;
  $("attempts-scope").textContent = state.selected ? scheduleOf(state.selected) : "all schedules";
  $("attempts").tBodies[0].replaceChildren(
    ...answer.attempts.map((attempt) => {
      const [css, words] = outcomeOf(attempt);
      const key = attemptKey(attempt);
      const row = el(
        "tr",
        { "data-key": key, className: isShown("attempt", key) ? "selected" : "" },
        el("td", { className: "when" }, when(attempt.attempted_at)),
        el("td", {}, breakable(madeBy(attempt))),
        el("td", {}, attempt.attempt_number),
        el(
          "td",
          { title: attempt.error_message || null },
          el("span", { className: "badge " + css }, words),
          attempt.error_code
            ? el("span", { className: "error" }, breakable(attempt.error_code))
            : null
        )
      );
      row.addEventListener("click", () => showAttempt(attempt));
      return row;
    })
  );
  $("attempts-empty").textContent = NO_ATTEMPTS[state.outcome];
  $("attempts-empty").hidden = answer.attempts.length > 0;
}

// The outcome listed is marked at once, before the attempts reload.
export function markOutcome() {
  for (const button of document.querySelectorAll("[data-outcome]")) {
    button.classList.toggle("active", button.dataset.outcome === state.outcome);
  }
}

export async function refreshDeadLetters() {
  const sequence = ++state.sequence.deadLetters;
  const answer = await api(
    "dead-letters" + query({ order: "newest", limit: RECENT, schedule: state.selected })
  );
  if (sequence !== state.sequence.deadLetters) return;
  $("dead-letters-scope").textContent = state.selected
    ? scheduleOf(state.selected)
    : "all schedules";
  $("dead-letters").tBodies[0].replaceChildren(
    ...answer.dead_letters.map((letter) => {
      const key = letterKey(letter);
      const attributes = letter.attributes || {};
      const row = el(
        "tr",
        { "data-key": key, className: isShown("dead-letter", key) ? "selected" : "" },
        el("td", { className: "when" }, when(letter.sent_at || letter.scheduled_time)),
        el(
          "td",
          {},
          breakable(madeBy(letter)),
          el(
            "span",
            { className: "queue", title: letter.queue_arn },
            "to ",
            breakable(lastPart(letter.queue_arn))
          )
        ),
        el(
          "td",
          { className: "error", title: attributes.ERROR_MESSAGE || null },
          breakable(attributes.ERROR_CODE || "")
        )
      );
      row.addEventListener("click", () => showDeadLetter(letter));
      return row;
    })
  );
  $("dead-letters-empty").hidden = answer.dead_letters.length > 0;
}

function attemptKey(attempt) {
  return `${attempt.execution_id}#${attempt.attempt_number}`;
}

function letterKey(letter) {
  // A rule target's letter names no schedule: its rule and its id tell it apart.
  const made = letter.schedule_arn || `${letter.rule_arn}#${letter.target_id}`;
  return `${made}@${letter.scheduled_time}`;
}

function isShown(kind, key) {
  return Boolean(state.detail && state.detail.kind === kind && state.detail.key === key);
}

// -- the details panel ------------------------------------------------------------------

function fields(pairs) {
  const list = el("dl", { className: "detail-grid" });
  for (const [label, value] of pairs) {
    if (value === null || value === undefined || value === "") continue;
    list.append(el("dt", {}, breakable(label)), el("dd", {}, breakable(value)));
  }
  return list;
}

function showDetail(kind, key, title, ...content) {
  state.detail = { kind, key };
  $("detail-title").textContent = title;
  $("detail").replaceChildren(el("div", { className: "detail" }, ...content));
  $("detail-close").hidden = false;
  markShownRow();
  $("detail-card").scrollIntoView({ block: "nearest" });
}

export function clearDetail() {
  state.detail = null;
  $("detail-title").textContent = "Details";
  $("detail").replaceChildren(
    el(
      "p",
      { className: "empty" },
      "Choose an attempt or a dead letter to see what was sent, when, and what went wrong."
    )
  );
  $("detail-close").hidden = true;
  markShownRow();
}

// The row whose details are shown is marked; every other row is not.
function markShownRow() {
  for (const [table, kind] of [["attempts", "attempt"], ["dead-letters", "dead-letter"]]) {
    for (const row of $(table).tBodies[0].rows) {
      row.classList.toggle("selected", isShown(kind, row.dataset.key));
    }
  }
}

// Where a record came from: its schedule, or its rule and the rule's target.
function whose(record) {
  if (record.source !== "rule") return [["Schedule", record.schedule_arn]];
  return [
    ["Rule", record.rule_arn],
    ["Rule target id", record.target_id],
  ];
}

function showAttempt(attempt) {
  const [, words] = outcomeOf(attempt);
  showDetail(
    "attempt",
    attemptKey(attempt),
    `Attempt ${attempt.attempt_number} of ${madeBy(attempt)}: ${words}`,
    fields([
      ...whose(attempt),
      ["Target", attempt.target_arn],
      ["Scheduled time", when(attempt.scheduled_time)],
      ["Attempted at", when(attempt.attempted_at)],
      ["Attempt number", String(attempt.attempt_number)],
      ["Outcome", words],
      ["Error code", attempt.error_code],
      ["Error message", attempt.error_message],
      ["Event id", attempt.event_id],
      ["Execution id", attempt.execution_id],
    ]),
    el("h3", {}, "Payload"),
    el("pre", { "data-testid": "attempt-payload" }, pretty(attempt.payload, attempt.input)),
    el("h3", {}, "Target request"),
    el("pre", { "data-testid": "attempt-request" }, pretty(attempt.request, attempt.request_text)),
    ...functionRuns(attempt.invocations || [])
  );
}

// The runs of a stack's own function that the attempt's event caused: the first and
// Lambda's retries of it, each with what it returned or raised and what it logged.
function functionRuns(runs) {
  if (runs.length === 0) return [];
  return [
    el("h3", {}, `Function runs (${runs.length})`),
    ...runs.map((run) =>
      el(
        "div",
        { className: "function-run", "data-testid": "function-run" },
        fields([
          ["Function", run.function_name],
          ["Run", String(run.attempt)],
          ["Invoked at", when(run.invoked_at)],
          ["Outcome", run.error_type ? "error" : "ok"],
          ["Error", run.error_type ? `${run.error_type}: ${run.error_message || ""}` : null],
          ["Request id", run.request_id],
        ]),
        run.error_type
          ? null
          : el("pre", { "data-testid": "run-result" }, pretty(run.result, JSON.stringify(run.result))),
        run.logs ? el("pre", { "data-testid": "run-logs" }, run.logs) : null
      )
    ),
  ];
}

function showDeadLetter(letter) {
  showDetail(
    "dead-letter",
    letterKey(letter),
    `Dead letter of ${madeBy(letter)}`,
    fields([
      ["Queue", letter.queue_arn],
      ...whose(letter),
      ["Scheduled time", when(letter.scheduled_time)],
      ["Sent at", when(letter.sent_at)],
      ["Delivered to the queue", letter.delivered ? "yes" : "no"],
    ]),
    el("h3", {}, "Message attributes"),
    fields(Object.entries(letter.attributes || {}).sort()),
    el("h3", {}, "Input, as the target would have received it"),
    el("pre", { "data-testid": "dead-letter-input" }, pretty(parsed(letter.input), letter.input)),
    el("h3", {}, "Body, as the queue received it"),
    el("pre", { "data-testid": "dead-letter-body" }, pretty(letter.payload, letter.body))
  );
}

// A text parsed as JSON, or null when it is none (plain text is shown as it is).
function parsed(text) {
  if (text === null || text === undefined) return null;
  try {
    return JSON.parse(text);
  } catch (ignored) {
    return null;
  }
}

// The summary: the clock in the header, the counts, and the accounts and regions to filter
// by. Its signature tells the poller whether anything changed since the last look.

import { api } from "./api.js";
import { $, el } from "./dom.js";
import { number, when } from "./format.js";
import { state } from "./state.js";

export async function refreshSummary() {
  const summary = await api("summary");
  state.summary = summary;
  $("now").textContent = when(summary.now);
  $("now").setAttribute("datetime", summary.now);
  const kind = $("clock-kind");
  kind.textContent = summary.clock === "virtual" ? "virtual clock" : "real time";
  kind.className = "pill " + summary.clock;
  $("version").textContent = "v" + summary.version;
  for (const button of document.querySelectorAll("#clock-controls button")) {
    button.disabled = summary.clock !== "virtual" && button.id !== "reset";
  }
  $("stat-schedules").textContent = number(summary.schedule_count);
  $("stat-groups").textContent = number(summary.group_count);
  $("stat-attempts").textContent = number(summary.written.attempts);
  $("stat-dead-letters").textContent = number(summary.written.dead_letters);
  fillChoices($("filter-account"), summary.accounts, "All accounts");
  fillChoices($("filter-region"), summary.regions, "All regions");
  const moveInput = $("move-to-time");
  if (!moveInput.value || moveInput.dataset.auto === "1") {
    moveInput.value = summary.now;
    moveInput.dataset.auto = "1";
  }
  return [
    summary.now,
    summary.schedule_count,
    summary.rule_count,
    summary.group_count,
    summary.written.attempts,
    summary.written.dead_letters,
    summary.written.activity,
    summary.written.executions,
    summary.written.generation,
  ].join("|");
}

function fillChoices(select, values, allLabel) {
  const wanted = [""].concat(values);
  const present = Array.from(select.options).map((option) => option.value);
  if (wanted.join("\n") === present.join("\n")) return;
  const chosen = select.value;
  select.replaceChildren(
    ...wanted.map((value) => el("option", { value: value }, value || allLabel))
  );
  select.value = wanted.includes(chosen) ? chosen : "";
}

// The timeline pane: the server draws the picture as SVG (the same drawing as
// emu.timeline()), of the chosen schedule or of the schedules of this page and every
// scheduled rule's targets.

import { api, query } from "./api.js";
import { $, el } from "./dom.js";
import { scheduleOf } from "./format.js";
import { state } from "./state.js";

export async function refreshTimeline() {
  const sequence = ++state.sequence.timeline;
  const box = $("timeline");
  const summary = state.summary;
  if (!summary) return;
  const arns = state.selected ? [] : state.rows.map((row) => row.arn);
  // Every target of a scheduled rule has a lane beside the page's schedules.
  const ruleTargets = summary.rule_target_count || 0;
  if (!state.selected && arns.length === 0 && ruleTargets === 0) {
    box.replaceChildren(el("div", { className: "placeholder" }, "No schedules to draw."));
    $("timeline-scope").textContent = "";
    return;
  }
  const [since, until] = timelineWindow(Date.parse(summary.now));
  const width = Math.max(640, Math.min(4000, Math.floor(box.clientWidth - 2)));
  const params = { since, until, width };
  if (state.selected) params.schedule = state.selected;
  else params.schedules = arns.join(",");
  $("timeline-scope").textContent = state.selected
    ? scheduleOf(state.selected)
    : `the ${arns.length} schedule${arns.length === 1 ? "" : "s"} of this page` +
      (ruleTargets ? ` and ${ruleTargets} rule target${ruleTargets === 1 ? "" : "s"}` : "");
  try {
    const svg = await api("timeline" + query(params), { text: true });
    if (sequence !== state.sequence.timeline) return;
    box.innerHTML = svg;
    performance.mark("schedemu:timeline");
  } catch (error) {
    if (sequence !== state.sequence.timeline) return;
    box.replaceChildren(el("div", { className: "placeholder" }, error.message));
  }
}

// The stretch drawn: most of it before now (what happened), the rest after (what comes).
function timelineWindow(now) {
  let past = state.span * 700;
  let future = state.span * 300;
  if (state.span === "all") {
    const shown = state.selected
      ? state.rows.filter((row) => row.arn === state.selected)
      : state.rows;
    const created = shown.map((row) => Date.parse(row.creation_date));
    const earliest = created.length ? Math.min(...created) : now;
    past = Math.max(now - earliest, 3600 * 1000) * 1.02;
    future = Math.max(past * 0.2, 3600 * 1000);
  }
  const iso = (moment) => new Date(moment).toISOString().replace(".000Z", "Z");
  return [iso(Math.floor((now - past) / 1000) * 1000), iso(Math.ceil((now + future) / 1000) * 1000)];
}

export function markSpan() {
  for (const button of document.querySelectorAll("[data-span]")) {
    button.classList.toggle("active", button.dataset.span === String(state.span));
  }
}

// The schedemu dashboard: reads the control API under /_schedemu/ and nothing else.
//
// This module starts the page: it wires the controls that change what the panes show
// (the pager, the filters, the chosen group and schedule, the rules' run buttons, the
// timeline's span, the outcome of the attempts listed, the details panel's close button),
// loads everything once and starts the poll. Each pane lives in its own module; refresh.js
// decides which of them reload when.

import { runNow, wireClock } from "./clock.js";
import { $, showStatus } from "./dom.js";
import { clearDetail, markOutcome, refreshAttempts } from "./records.js";
import {
  guarded,
  refreshEverything,
  refreshFocused,
  refreshPage,
  restartPaging,
  startPolling,
} from "./refresh.js";
import { runRule } from "./rules.js";
import { markChosenSchedule } from "./schedules.js";
import { state } from "./state.js";
import { markSpan, refreshTimeline } from "./timeline.js";

function wirePager() {
  $("page-prev").addEventListener("click", () => {
    if (state.page > 0) {
      state.page -= 1;
      state.selected = null;
      refreshPage();
    }
  });
  $("page-next").addEventListener("click", () => {
    if (state.tokens[state.page + 1]) {
      state.page += 1;
      state.selected = null;
      refreshPage();
    }
  });
}

function wireFilters() {
  const filters = [
    ["filter-account", "account_id"],
    ["filter-region", "region"],
    ["filter-state", "state"],
  ];
  for (const [id, name] of filters) {
    $(id).addEventListener("change", (event) => {
      state.filters[name] = event.target.value;
      restartPaging();
    });
  }
  let typing = null;
  $("filter-prefix").addEventListener("input", (event) => {
    clearTimeout(typing);
    typing = setTimeout(() => {
      state.filters.prefix = event.target.value.trim();
      restartPaging();
    }, 250);
  });
  // Groups are drawn anew on every reload; their list, which stays, hears their clicks.
  $("groups").addEventListener("click", (event) => {
    const item = event.target.closest("li[data-group]");
    if (!item) return;
    state.filters.group = item.dataset.group;
    restartPaging();
  });
}

// A click on a schedule's row focuses the timeline and the records on it; a second lets go.
// Its "Run now" button fires the schedule instead.
function wireChosenSchedule() {
  $("schedules").tBodies[0].addEventListener("click", (event) => {
    const run = event.target.closest("button[data-fire-name]");
    if (run) {
      runNow(run.dataset.fireGroup, run.dataset.fireName);
      return;
    }
    const row = event.target.closest("tr[data-arn]");
    if (!row) return;
    state.selected = state.selected === row.dataset.arn ? null : row.dataset.arn;
    markChosenSchedule();
    refreshFocused();
  });
}

// A rule's "Run now" (one target) or "Run all" fires it, then the page reloads.
function wireRules() {
  $("rules").tBodies[0].addEventListener("click", async (event) => {
    const run = event.target.closest("button[data-fire-rule]");
    if (!run) return;
    try {
      await runRule(run);
    } catch (error) {
      showStatus(error.message, true);
      return;
    }
    await refreshEverything();
  });
}

function wireTimeline() {
  for (const button of document.querySelectorAll("[data-span]")) {
    button.addEventListener("click", () => {
      const span = button.dataset.span;
      state.span = span === "all" ? span : Number(span);
      markSpan();
      guarded(refreshTimeline);
    });
  }
  let resizing = null;
  window.addEventListener("resize", () => {
    clearTimeout(resizing);
    resizing = setTimeout(() => guarded(refreshTimeline), 300);
  });
  markSpan();
}

function wireOutcome() {
  for (const button of document.querySelectorAll("[data-outcome]")) {
    button.addEventListener("click", () => {
      state.outcome = button.dataset.outcome;
      markOutcome();
      guarded(refreshAttempts);
    });
  }
  markOutcome();
}

async function start() {
  wireClock();
  wirePager();
  wireFilters();
  wireChosenSchedule();
  wireRules();
  wireTimeline();
  wireOutcome();
  $("detail-close").addEventListener("click", clearDetail);
  await refreshEverything();
  startPolling();
}

start();

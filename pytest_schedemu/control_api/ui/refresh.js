// Which panes reload when, and the poll that keeps the page current.
//
// The page polls the summary every POLL_MS and reloads its lists only when something
// changed (the clock, a count of records, schedules, rules or groups), so a quiet emulator
// costs one small request per poll.

import { showStatus } from "./dom.js";
import { refreshAttempts, refreshDeadLetters } from "./records.js";
import { refreshRules } from "./rules.js";
import { refreshGroups, refreshSchedules } from "./schedules.js";
import { state } from "./state.js";
import { refreshSummary } from "./summary.js";
import { refreshTimeline } from "./timeline.js";

const POLL_MS = 2000;

export async function guarded(work) {
  const chosen = state.selected;
  try {
    await work();
  } catch (error) {
    if (error.status === 404 && chosen) {
      // The chosen schedule went with a reset made elsewhere: back to the page (once,
      // though each of the lists that asked for it hears so).
      if (state.selected === chosen) {
        state.selected = null;
        showStatus("The chosen schedule no longer exists: showing the page's schedules.");
        await refreshFocused();
      }
      return;
    }
    showStatus(error.message, true);
  }
}

export function refreshFocused() {
  return Promise.all([
    guarded(refreshTimeline),
    guarded(refreshAttempts),
    guarded(refreshDeadLetters),
  ]);
}

// Groups, schedules with their timeline, rules, and the recent records, side by side.
function refreshLists() {
  return Promise.all([
    guarded(refreshGroups),
    guarded(refreshRules),
    guarded(async () => {
      await refreshSchedules();
      await refreshTimeline();
    }),
    guarded(refreshAttempts),
    guarded(refreshDeadLetters),
  ]);
}

export async function refreshEverything() {
  await guarded(async () => {
    state.signature = await refreshSummary();
  });
  await refreshLists();
}

export async function refreshPage() {
  await guarded(async () => {
    await refreshSchedules();
    await refreshTimeline();
  });
  await Promise.all([guarded(refreshAttempts), guarded(refreshDeadLetters)]);
}

export function restartPaging() {
  state.tokens = [null];
  state.page = 0;
  state.selected = null;
  refreshEverything();
}

async function poll() {
  try {
    const signature = await refreshSummary();
    if (signature !== state.signature) {
      state.signature = signature;
      await refreshLists();
    }
  } catch (error) {
    showStatus("The emulator does not answer: " + error.message, true);
  }
  setTimeout(poll, POLL_MS);
}

export function startPolling() {
  setTimeout(poll, POLL_MS);
}

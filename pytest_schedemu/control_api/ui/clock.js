// The clock's controls in the header: advance, move to, next, tick, and reset (which asks
// for a second click), and each schedule's "Run now". Each move reports the attempts it made
// (and how many of them are kept) and reloads the whole page.

import { post } from "./api.js";
import { $, showStatus } from "./dom.js";
import { number, when } from "./format.js";
import { clearDetail } from "./records.js";
import { refreshEverything, restartPaging } from "./refresh.js";

const CONFIRM_MS = 4000;

async function travel(path, body, describe) {
  try {
    const answer = await post(path, body);
    const made = answer.attempts_made;
    const kept = answer.attempt_count;
    // Beyond max_records only the newest attempts are kept, and the lists show only those.
    const keptText = kept === made ? "" : `, the newest ${number(kept)} kept (max records)`;
    showStatus(
      `${describe}: the clock is at ${when(answer.now)}; ` +
        `${number(made)} attempt${made === 1 ? "" : "s"} made${keptText}.`
    );
    $("move-to-time").dataset.auto = "1";
    await refreshEverything();
  } catch (error) {
    showStatus(error.message, true);
  }
}

export function wireClock() {
  for (const button of document.querySelectorAll("[data-advance]")) {
    button.addEventListener("click", () => {
      travel("clock/advance", JSON.parse(button.dataset.advance), "Advanced by " + button.textContent.slice(1));
    });
  }
  $("advance-form").addEventListener("submit", (event) => {
    event.preventDefault();
    const amount = Number($("advance-amount").value);
    const unit = $("advance-unit").value;
    travel("clock/advance", { [unit]: amount }, `Advanced by ${amount} ${unit}`);
  });
  $("move-form").addEventListener("submit", (event) => {
    event.preventDefault();
    const input = $("move-to-time");
    input.dataset.auto = "0";
    travel("clock/move-to", { time: input.value.trim() }, "Moved");
  });
  $("move-to-time").addEventListener("input", (event) => {
    event.target.dataset.auto = "0";
  });
  $("next").addEventListener("click", () => travel("clock/advance-to-next", {}, "Moved to the next work"));
  $("tick").addEventListener("click", () => travel("clock/tick", {}, "Ticked"));
  wireReset();
}

// Fires one occurrence of the schedule now; the clock stays where it is.
export async function runNow(group, name) {
  try {
    const answer = await post(`schedules/${encodeURIComponent(group)}/${encodeURIComponent(name)}/fire`, {});
    const attempt = answer.attempt;
    const outcome = attempt.succeeded ? "delivered" : `failed (${attempt.error_code})`;
    showStatus(`Ran ${group}/${name} now, at ${when(answer.now)}: attempt 1 ${outcome}.`, !attempt.succeeded);
    await refreshEverything();
  } catch (error) {
    showStatus(error.message, true);
  }
}

function wireReset() {
  const button = $("reset");
  let confirming = null;
  button.addEventListener("click", async () => {
    if (!confirming) {
      button.textContent = "Confirm reset";
      button.classList.add("confirming");
      confirming = setTimeout(() => {
        button.textContent = "Reset";
        button.classList.remove("confirming");
        confirming = null;
      }, CONFIRM_MS);
      return;
    }
    clearTimeout(confirming);
    confirming = null;
    button.textContent = "Reset";
    button.classList.remove("confirming");
    try {
      const answer = await post("reset", {});
      showStatus(`Reset: every schedule, group and record is gone; the clock is at ${when(answer.now)}.`);
      clearDetail();
      $("move-to-time").dataset.auto = "1";
      restartPaging();
    } catch (error) {
      showStatus(error.message, true);
    }
  });
}

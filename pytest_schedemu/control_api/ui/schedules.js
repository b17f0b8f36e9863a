// The schedule groups and one page of schedules, paged on the server: the page never holds
// more than PAGE_SIZE schedules, whatever the emulator stores. Schedules deleted since the
// last reset stay listed, greyed and marked with when and how they went, as the timeline
// keeps their lanes. Clicks on a group or a row are the page's to handle (app.js): they
// change what every other pane shows.

import { api, query } from "./api.js";
import { $, el } from "./dom.js";
import { lastPart, number, when } from "./format.js";
import { state } from "./state.js";

const PAGE_SIZE = 20;
// How each way of deleting a schedule is told in its row.
const DELETED_BY = {
  ActionAfterCompletion: "after its last occurrence",
  DeleteSchedule: "by DeleteSchedule",
  DeleteScheduleGroup: "with its group",
};

export async function refreshGroups() {
  const { account_id, region } = state.filters;
  const answer = await api("groups" + query({ account_id, region, limit: 200 }));
  $("group-count").textContent = `(${number(answer.total)})`;
  const list = $("groups");
  const items = [
    groupItem("", "All groups", null, state.summary ? state.summary.schedule_count : null),
  ];
  for (const group of answer.groups) {
    const where = multiplePartitions() ? `${group.account_id} · ${group.region}` : null;
    items.push(groupItem(group.name, group.name, where, group.schedule_count, group.state));
  }
  list.replaceChildren(...items);
  const more = $("groups-more");
  more.hidden = !answer.next_token;
  more.textContent = answer.next_token
    ? `Showing the first ${answer.groups.length} of ${number(answer.total)} groups: filter by account or region.`
    : "";
}

function multiplePartitions() {
  const summary = state.summary;
  return Boolean(summary && (summary.accounts.length > 1 || summary.regions.length > 1));
}

function groupItem(value, label, where, count, groupState) {
  return el(
    "li",
    { "data-group": value, className: state.filters.group === value ? "selected" : "" },
    el(
      "span",
      { className: "group-name" },
      label,
      groupState && groupState !== "ACTIVE" ? ` (${groupState.toLowerCase()})` : "",
      where ? el("span", { className: "group-where" }, where) : null
    ),
    el("span", { className: "group-count" }, count === null ? "" : number(count))
  );
}

export async function refreshSchedules() {
  const sequence = ++state.sequence.schedules;
  const params = Object.assign({}, state.filters, {
    include_deleted: "true",
    limit: PAGE_SIZE,
    next_token: state.tokens[state.page],
  });
  const answer = await api("schedules" + query(params));
  if (sequence !== state.sequence.schedules) return;
  state.rows = answer.schedules;
  state.total = answer.total;
  state.tokens[state.page + 1] = answer.next_token;
  renderSchedules();
  performance.mark("schedemu:rows");
}

function renderSchedules() {
  const body = $("schedules").tBodies[0];
  body.replaceChildren(...state.rows.map(scheduleRow));
  $("schedules-empty").hidden = state.rows.length > 0;
  const first = state.page * PAGE_SIZE + 1;
  $("schedules-range").textContent = state.rows.length
    ? `${number(first)}–${number(first + state.rows.length - 1)} of ${number(state.total)}`
    : "";
  $("page-prev").disabled = state.page === 0;
  $("page-next").disabled = !state.tokens[state.page + 1];
}

function stateCell(schedule) {
  const words = schedule.state.toLowerCase();
  const badge = el("span", { className: "badge " + schedule.state }, words);
  if (schedule.state !== "DELETED") return el("td", {}, badge);
  const how = DELETED_BY[schedule.deleted_by];
  return el(
    "td",
    {},
    badge,
    schedule.deleted_at ? el("span", { className: "local when" }, when(schedule.deleted_at)) : null,
    how ? el("span", { className: "local" }, how) : null
  );
}

function scheduleRow(schedule) {
  const next = schedule.next_occurrence
    ? el(
        "td",
        { className: "when" },
        when(schedule.next_occurrence),
        schedule.timezone !== "UTC" && schedule.next_occurrence_local
          ? el("span", { className: "local" }, schedule.next_occurrence_local)
          : null
      )
    : el("td", { className: "when muted" }, "none");
  return el(
    "tr",
    {
      "data-arn": schedule.arn,
      className: [
        schedule.arn === state.selected ? "selected" : "",
        schedule.state === "DELETED" ? "deleted" : "",
      ].join(" ").trim(),
      title: schedule.arn,
    },
    el(
      "td",
      {},
      el("span", { className: "schedule-name" }, schedule.name),
      schedule.description ? el("span", { className: "local" }, schedule.description) : null,
      schedule.stack
        ? el(
            "span",
            { className: "local", title: "defined by this stack's resource" },
            `${schedule.stack} · ${schedule.logical_id}`
          )
        : null
    ),
    el("td", {}, schedule.group_name),
    el("td", { className: "mono" }, schedule.schedule_expression),
    el("td", {}, schedule.timezone),
    stateCell(schedule),
    next,
    targetCell(schedule),
    runCell(schedule)
  );
}

// A stored schedule can be run now (app.js hears the click); a deleted one cannot.
function runCell(schedule) {
  if (schedule.state === "DELETED") return el("td", {});
  return el(
    "td",
    {},
    el(
      "button",
      {
        type: "button",
        className: "run-now",
        "data-fire-group": schedule.group_name,
        "data-fire-name": schedule.name,
        title: "Make one occurrence of this schedule now, without moving the clock",
      },
      "Run now"
    )
  );
}

// The chosen schedule's row is marked at once, before the panes it focuses reload.
export function markChosenSchedule() {
  for (const row of $("schedules").tBodies[0].rows) {
    row.classList.toggle("selected", row.dataset.arn === state.selected);
  }
}

// The target by its resource's name (a Custom Event Bus's ARN ends in its id), and the
// operation each attempt calls; the whole ARN on hover.
function targetCell(schedule) {
  const name = schedule.target_resource || lastPart(schedule.target_arn);
  const operation = schedule.target_operation;
  return el(
    "td",
    { className: "arn", title: schedule.target_arn },
    name,
    operation ? el("span", { className: "local" }, operation) : null
  );
}

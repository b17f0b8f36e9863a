// The schedemu dashboard: reads the control API under /_schedemu/ and nothing else.
//
// The page polls the summary every POLL_MS and reloads its lists only when something
// changed (the clock, a count of records, schedules or groups), so a quiet emulator costs
// one small request per poll. Lists are paged on the server: the page never holds more
// than one page of schedules, whatever the emulator stores.
"use strict";

(function () {
  const API = "/_schedemu/";
  const PAGE_SIZE = 20;
  const RECENT = 30;
  const POLL_MS = 2000;

  const state = {
    filters: { account_id: "", region: "", group: "", state: "", prefix: "" },
    tokens: [null], // tokens[i] starts page i
    page: 0,
    rows: [],
    total: 0,
    selected: null, // the ARN of the schedule the timeline and lists focus on
    span: "all", // seconds shown around now, or "all": since the schedules were created
    summary: null,
    signature: "",
    detail: null, // {kind, key}
    sequence: { schedules: 0, timeline: 0, attempts: 0, deadLetters: 0 },
  };

  const $ = (id) => document.getElementById(id);

  // -- talking to the control API -------------------------------------------------------

  async function api(path, options) {
    const response = await fetch(API + path, options || {});
    const text = await response.text();
    if (!response.ok) {
      let message = text;
      try {
        const error = JSON.parse(text);
        message = error.Message || error.message || text;
      } catch (ignored) {
        // not JSON: the text says it
      }
      const error = new Error(message);
      error.status = response.status;
      throw error;
    }
    return options && options.text ? text : JSON.parse(text);
  }

  function post(path, body) {
    return api(path, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(body || {}),
    });
  }

  function query(params) {
    const parts = [];
    for (const [key, value] of Object.entries(params)) {
      if (value !== "" && value !== null && value !== undefined) {
        parts.push(encodeURIComponent(key) + "=" + encodeURIComponent(value));
      }
    }
    return parts.length ? "?" + parts.join("&") : "";
  }

  // -- small DOM helpers -----------------------------------------------------------------

  function el(tag, attributes, ...children) {
    const node = document.createElement(tag);
    for (const [key, value] of Object.entries(attributes || {})) {
      if (value === null || value === undefined || value === false) continue;
      if (key === "className") node.className = value;
      else node.setAttribute(key, value);
    }
    for (const child of children) {
      if (child === null || child === undefined || child === false) continue;
      node.append(child instanceof Node ? child : document.createTextNode(String(child)));
    }
    return node;
  }

  function when(text) {
    return text ? text.replace("T", " ") : "–";
  }

  function number(value) {
    return Number(value).toLocaleString("en-US");
  }

  function scheduleOf(arn) {
    return (arn || "").split(":schedule/")[1] || arn || "";
  }

  function lastPart(arn) {
    const parts = (arn || "").split(/[:/]/);
    return parts[parts.length - 1] || arn;
  }

  function status(message, isError) {
    const node = $("status");
    node.textContent = message || "";
    node.classList.toggle("error", Boolean(isError));
  }

  // -- the summary and the clock -------------------------------------------------------

  async function refreshSummary() {
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

  async function travel(path, body, describe) {
    try {
      const answer = await post(path, body);
      const count = answer.attempt_count;
      status(
        `${describe}: the clock is at ${when(answer.now)}; ` +
          `${number(count)} attempt${count === 1 ? "" : "s"} made.`
      );
      $("move-to-time").dataset.auto = "1";
      await refreshEverything();
    } catch (error) {
      status(error.message, true);
    }
  }

  // -- groups and schedules ---------------------------------------------------------------

  async function refreshGroups() {
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
    const item = el(
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
    item.addEventListener("click", () => {
      state.filters.group = value;
      restartPaging();
    });
    return item;
  }

  async function refreshSchedules() {
    const sequence = ++state.sequence.schedules;
    const params = Object.assign({}, state.filters, {
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
    const row = el(
      "tr",
      {
        "data-arn": schedule.arn,
        className: schedule.arn === state.selected ? "selected" : "",
        title: schedule.arn,
      },
      el(
        "td",
        {},
        el("span", { className: "schedule-name" }, schedule.name),
        schedule.description ? el("span", { className: "local" }, schedule.description) : null
      ),
      el("td", {}, schedule.group_name),
      el("td", { className: "mono" }, schedule.schedule_expression),
      el("td", {}, schedule.timezone),
      el("td", {}, el("span", { className: "badge " + schedule.state }, schedule.state.toLowerCase())),
      next,
      el("td", { className: "arn", title: schedule.target_arn }, lastPart(schedule.target_arn))
    );
    row.addEventListener("click", () => {
      state.selected = state.selected === schedule.arn ? null : schedule.arn;
      for (const other of $("schedules").tBodies[0].rows) {
        other.classList.toggle("selected", other.dataset.arn === state.selected);
      }
      refreshFocused();
    });
    return row;
  }

  function restartPaging() {
    state.tokens = [null];
    state.page = 0;
    state.selected = null;
    refreshEverything();
  }

  // -- the timeline -------------------------------------------------------------------

  async function refreshTimeline() {
    const sequence = ++state.sequence.timeline;
    const box = $("timeline");
    const summary = state.summary;
    if (!summary) return;
    const arns = state.selected ? [] : state.rows.map((row) => row.arn);
    if (!state.selected && arns.length === 0) {
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
      : `the ${arns.length} schedule${arns.length === 1 ? "" : "s"} of this page`;
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

  // -- recent attempts and dead letters -----------------------------------------------

  function outcomeOf(attempt) {
    if (attempt.succeeded) return ["delivered", "delivered"];
    return attempt.retryable === false
      ? ["permanent", "failed, permanent"]
      : ["retryable", "failed, retryable"];
  }

  async function refreshAttempts() {
    const sequence = ++state.sequence.attempts;
    const answer = await api(
      "attempts" + query({ order: "newest", limit: RECENT, schedule: state.selected })
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
          el("td", {}, scheduleOf(attempt.schedule_arn)),
          el("td", {}, attempt.attempt_number),
          el(
            "td",
            { title: attempt.error_message || null },
            el("span", { className: "badge " + css }, words),
            attempt.error_code ? el("span", { className: "error" }, attempt.error_code) : null
          )
        );
        row.addEventListener("click", () => showAttempt(attempt));
        return row;
      })
    );
    $("attempts-empty").hidden = answer.attempts.length > 0;
  }

  async function refreshDeadLetters() {
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
        const row = el(
          "tr",
          { "data-key": key, className: isShown("dead-letter", key) ? "selected" : "" },
          el("td", { className: "when" }, when(letter.sent_at || letter.scheduled_time)),
          el("td", {}, scheduleOf(letter.schedule_arn)),
          el("td", { className: "arn", title: letter.queue_arn }, lastPart(letter.queue_arn)),
          el("td", { className: "error" }, (letter.attributes || {}).ERROR_CODE || "")
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
    return `${letter.schedule_arn}@${letter.scheduled_time}`;
  }

  function isShown(kind, key) {
    return Boolean(state.detail && state.detail.kind === kind && state.detail.key === key);
  }

  // -- details ----------------------------------------------------------------------

  function pretty(value, text) {
    if (value !== null && value !== undefined && typeof value === "object") {
      return JSON.stringify(value, null, 2);
    }
    return text === null || text === undefined ? "(none)" : String(text);
  }

  function fields(pairs) {
    const list = el("dl", { className: "detail-grid" });
    for (const [label, value] of pairs) {
      if (value === null || value === undefined || value === "") continue;
      list.append(el("dt", {}, label), el("dd", {}, value));
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

  function clearDetail() {
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

  function showAttempt(attempt) {
    const [, words] = outcomeOf(attempt);
    showDetail(
      "attempt",
      attemptKey(attempt),
      `Attempt ${attempt.attempt_number} of ${scheduleOf(attempt.schedule_arn)}: ${words}`,
      fields([
        ["Schedule", attempt.schedule_arn],
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
      el("pre", {}, pretty(attempt.request, attempt.request_text))
    );
  }

  function showDeadLetter(letter) {
    showDetail(
      "dead-letter",
      letterKey(letter),
      `Dead letter of ${scheduleOf(letter.schedule_arn)}`,
      fields([
        ["Queue", letter.queue_arn],
        ["Schedule", letter.schedule_arn],
        ["Scheduled time", when(letter.scheduled_time)],
        ["Sent at", when(letter.sent_at)],
        ["Delivered to the queue", letter.delivered ? "yes" : "no"],
      ]),
      el("h3", {}, "Message attributes"),
      fields(Object.entries(letter.attributes || {}).sort()),
      el("h3", {}, "Body"),
      el("pre", {}, pretty(letter.payload, letter.body))
    );
  }

  // -- refreshing ---------------------------------------------------------------------

  async function guarded(work) {
    const chosen = state.selected;
    try {
      await work();
    } catch (error) {
      if (error.status === 404 && chosen) {
        // The chosen schedule went with a reset made elsewhere: back to the page (once,
        // though each of the lists that asked for it hears so).
        if (state.selected === chosen) {
          state.selected = null;
          status("The chosen schedule no longer exists: showing the page's schedules.");
          await refreshFocused();
        }
        return;
      }
      status(error.message, true);
    }
  }

  function refreshFocused() {
    return Promise.all([
      guarded(refreshTimeline),
      guarded(refreshAttempts),
      guarded(refreshDeadLetters),
    ]);
  }

  // Groups, schedules with their timeline, and the recent records, side by side.
  function refreshLists() {
    return Promise.all([
      guarded(refreshGroups),
      guarded(async () => {
        await refreshSchedules();
        await refreshTimeline();
      }),
      guarded(refreshAttempts),
      guarded(refreshDeadLetters),
    ]);
  }

  async function refreshEverything() {
    await guarded(async () => {
      state.signature = await refreshSummary();
    });
    await refreshLists();
  }

  async function poll() {
    try {
      const signature = await refreshSummary();
      if (signature !== state.signature) {
        state.signature = signature;
        await refreshLists();
      }
    } catch (error) {
      status("The emulator does not answer: " + error.message, true);
    }
    setTimeout(poll, POLL_MS);
  }

  // -- wiring -------------------------------------------------------------------------

  function wire() {
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
    $("tick").addEventListener("click", () => travel("tick", {}, "Ticked"));
    let confirming = null;
    $("reset").addEventListener("click", async () => {
      const button = $("reset");
      if (!confirming) {
        button.textContent = "Confirm reset";
        button.classList.add("confirming");
        confirming = setTimeout(() => {
          button.textContent = "Reset";
          button.classList.remove("confirming");
          confirming = null;
        }, 4000);
        return;
      }
      clearTimeout(confirming);
      confirming = null;
      button.textContent = "Reset";
      button.classList.remove("confirming");
      try {
        const answer = await post("reset", {});
        status(`Reset: every schedule, group and record is gone; the clock is at ${when(answer.now)}.`);
        clearDetail();
        $("move-to-time").dataset.auto = "1";
        restartPaging();
      } catch (error) {
        status(error.message, true);
      }
    });
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
    for (const button of document.querySelectorAll("[data-span]")) {
      button.addEventListener("click", () => {
        const span = button.dataset.span;
        state.span = span === "all" ? span : Number(span);
        markSpan();
        guarded(refreshTimeline);
      });
    }
    $("detail-close").addEventListener("click", clearDetail);
    let resizing = null;
    window.addEventListener("resize", () => {
      clearTimeout(resizing);
      resizing = setTimeout(() => guarded(refreshTimeline), 300);
    });
    markSpan();
  }

  function markSpan() {
    for (const button of document.querySelectorAll("[data-span]")) {
      button.classList.toggle("active", button.dataset.span === String(state.span));
    }
  }

  async function refreshPage() {
    await guarded(async () => {
      await refreshSchedules();
      await refreshTimeline();
    });
    await Promise.all([guarded(refreshAttempts), guarded(refreshDeadLetters)]);
  }

  async function start() {
    wire();
    await refreshEverything();
    setTimeout(poll, POLL_MS);
  }

  start();
})();

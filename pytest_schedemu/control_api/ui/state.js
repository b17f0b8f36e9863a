// What the page shows and where it stands: one object, read and changed by every pane.

export const state = {
  filters: { account_id: "", region: "", group: "", state: "", prefix: "" },
  tokens: [null], // tokens[i] starts page i
  page: 0,
  rows: [],
  total: 0,
  selected: null, // the ARN of the schedule the timeline and lists focus on
  outcome: "", // the attempts listed: "" (all), "succeeded" or "failed"
  span: "all", // seconds shown around now, or "all": since the schedules were created
  summary: null,
  signature: "",
  detail: null, // {kind, key}
  // Each list's latest request: an answer to an older one arrives late and is dropped.
  sequence: { schedules: 0, rules: 0, timeline: 0, attempts: 0, deadLetters: 0 },
};

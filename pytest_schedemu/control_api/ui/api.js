// Talking to the control API: the dashboard reads /_schedemu/ and nothing else.

const API = "/_schedemu/";

export async function api(path, options) {
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

export function post(path, body) {
  return api(path, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(body || {}),
  });
}

export function query(params) {
  const parts = [];
  for (const [key, value] of Object.entries(params)) {
    if (value !== "" && value !== null && value !== undefined) {
      parts.push(encodeURIComponent(key) + "=" + encodeURIComponent(value));
    }
  }
  return parts.length ? "?" + parts.join("&") : "";
}

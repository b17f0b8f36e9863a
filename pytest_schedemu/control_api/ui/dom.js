// Small DOM helpers: find by id, build an element, text that wraps where a reader expects,
// say something in the status line.

export const $ = (id) => document.getElementById(id);

export function el(tag, attributes, ...children) {
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

// Text that may break after each ":", "/", "_" and "." and inside camel case: a long ARN,
// attribute name or error code (ResourceNotFoundException) wraps between its parts rather
// than anywhere in a word (the style sheet breaks inside a part only when one alone is
// wider than its box).
export function breakable(text) {
  const fragment = document.createDocumentFragment();
  String(text)
    .split(/(?<=[:/_.])|(?<=[a-z])(?=[A-Z])/)
    .forEach((part, index) => {
      if (index > 0) fragment.append(document.createElement("wbr"));
      fragment.append(part);
    });
  return fragment;
}

export function showStatus(message, isError) {
  const node = $("status");
  node.textContent = message || "";
  node.classList.toggle("error", Boolean(isError));
}

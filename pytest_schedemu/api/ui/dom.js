// Small DOM helpers: find by id, build an element, say something in the status line.

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

export function showStatus(message, isError) {
  const node = $("status");
  node.textContent = message || "";
  node.classList.toggle("error", Boolean(isError));
}

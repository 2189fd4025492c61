// Building DOM nodes without ever parsing HTML: every string becomes a text node
// (`textContent`), so a player name, level name or verifier message from the API is shown
// as the characters it is, never interpreted as markup (a server test greps the page's
// code for every HTML-parsing sink).

/**
 * `el('a', {href: '#/x', class: 'y'}, 'text', child)` → an element. Attributes are set
 * with `setAttribute` (names are ours, values any string); `on*` keys add listeners;
 * children are nodes or strings (text nodes); `null`/`undefined`/`false` children are skipped.
 */
export function el(tag, attributes = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes ?? {})) {
    if (value === null || value === undefined || value === false) continue;
    if (name.startsWith('on') && typeof value === 'function') {
      node.addEventListener(name.slice(2), value);
    } else if (name === 'dataset') {
      Object.assign(node.dataset, value);
    } else if (value === true) {
      node.setAttribute(name, '');
    } else {
      node.setAttribute(name, String(value));
    }
  }
  append(node, children);
  return node;
}

/** Appends nodes or strings (as text) to `node`; arrays at any depth are flattened (a
 * nested list of parts is as good as a flat one, never its `toString`). */
export function append(node, children) {
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

/** Removes every child of `node`, then appends `children`. */
export function replace(node, ...children) {
  node.replaceChildren();
  return append(node, children);
}

/** A `#/...` link. */
export function link(href, ...children) {
  return el('a', { href }, ...children);
}

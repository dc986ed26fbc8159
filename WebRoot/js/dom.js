// The one way the app builds DOM nodes: el() for HTML, svg() for SVG, with the same props.
//
//   el('button', { class: 'primary', text: 'Save', dataset: { id: 7 }, style: { 'padding-left': '6px' },
//                  'aria-label': 'Save the trace', disabled: !dirty, onclick: save }, child, 'more text')
//
// Props:
//   class            the class list, as one string
//   text             textContent (set before `children` are appended)
//   dataset          {name: value} -> data-name="value"; null/undefined values are left out
//   style            {css-property: value} through the CSSOM (style.setProperty); a string throws:
//                    a style attribute is an inline style, which the Content-Security-Policy forbids
//   on<event>        a function, added with addEventListener; anything else throws (no inline handlers)
//   title            the tooltip, without bidirectional controls (tooltipText); so is an svg('title')'s text
//   anything else    an attribute: true -> present and empty, false/null/undefined -> left out,
//                    other values -> String(value)
// Children: nodes, strings or numbers (as text), arrays of them (flattened); null, undefined and
// false are skipped, so `cond ? el(...) : null` reads naturally.

const SVG_NS = 'http://www.w3.org/2000/svg';

export function el(tag, props = {}, ...children) {
  return build(document.createElement(tag), props, children);
}

export function svg(tag, props = {}, ...children) {
  // An SVG <title> is a tooltip: its text is treated like a title attribute.
  if (tag === 'title') {
    children = children.flat(Infinity).map((child) => (typeof child === 'string' ? tooltipText(child) : child));
    if (props?.text !== undefined && props.text !== null) props = { ...props, text: tooltipText(props.text) };
  }
  return build(document.createElementNS(SVG_NS, tag), props, children);
}

// Tooltips are drawn by the browser as one plain line, outside any <bdi> or CSS isolation: a
// bidirectional control in a trace's names (U+202E RIGHT-TO-LEFT OVERRIDE, say) would reverse
// the rest of the tooltip. They are left out of title attributes and SVG titles.
const BIDI_CONTROLS = /[\u202A-\u202E\u2066-\u2069]/g;
export function tooltipText(value) {
  return String(value).replace(BIDI_CONTROLS, '');
}

function build(node, props, children) {
  for (const [key, value] of Object.entries(props ?? {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key === 'text') node.textContent = String(value);
    else if (key === 'dataset') {
      for (const [name, data] of Object.entries(value)) if (data !== undefined && data !== null) node.dataset[name] = String(data);
    } else if (key === 'style') {
      if (typeof value !== 'object') throw new TypeError('el(): style must be an object of CSS properties');
      for (const [property, css] of Object.entries(value)) if (css !== undefined && css !== null) node.style.setProperty(property, String(css));
    } else if (key.startsWith('on')) {
      if (typeof value !== 'function') throw new TypeError(`el(): ${key} must be a function`);
      node.addEventListener(key.slice(2), value);
    } else if (key === 'title') node.setAttribute(key, tooltipText(value));
    else node.setAttribute(key, value === true ? '' : String(value));
  }
  for (const child of children.flat(Infinity)) {
    if (child === undefined || child === null || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

/**
 * A code name ("LandmarkImageLoader.loadImages(for:)", "Landmarks/MapView.swift:31") as text with
 * line-break opportunities after its separators (. ( / : and spaces), so a narrow column wraps it
 * between its parts, never inside a word. Children for el().
 */
export function codeName(text) {
  return String(text ?? '').split(/(?<=[.(/:])(?=[^\s.(/:)])/).flatMap((part, i) => (i ? [document.createElement('wbr'), part] : [part]));
}

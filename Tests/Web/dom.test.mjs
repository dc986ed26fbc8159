// el() and svg() (WebRoot/js/dom.js) treat every prop as dom.js documents, on a minimal fake DOM
// (just what dom.js touches), so a change of treatment shows here before any page breaks.
import test from 'node:test';
import assert from 'node:assert/strict';

class FakeNode {}
class FakeText extends FakeNode { constructor(text) { super(); this.text = text; } }
class FakeElement extends FakeNode {
  constructor(tag, namespace = null) {
    super();
    Object.assign(this, { tag, namespace, attributes: {}, dataset: {}, listeners: {}, children: [], properties: {} });
    this.style = { setProperty: (name, value) => { this.properties[name] = value; } };
  }
  setAttribute(name, value) { this.attributes[name] = value; }
  addEventListener(type, fn) { this.listeners[type] = fn; }
  append(...nodes) { this.children.push(...nodes); }
  set textContent(text) { this.children = [new FakeText(text)]; }
}
globalThis.Node = FakeNode;
globalThis.document = {
  createElement: (tag) => new FakeElement(tag),
  createElementNS: (namespace, tag) => new FakeElement(tag, namespace),
  createTextNode: (text) => new FakeText(text),
};
const { el, svg, tooltipText } = await import('../../WebRoot/js/dom.js');
const texts = (node) => node.children.map((c) => (c instanceof FakeText ? c.text : `<${c.tag}>`));

test('attributes: true is present and empty, false/null/undefined are left out, the rest is text', () => {
  const node = el('input', { type: 'checkbox', checked: true, disabled: false, title: null, value: undefined, tabindex: 0, 'aria-level': 2, class: 'a b' });
  assert.deepEqual(node.attributes, { type: 'checkbox', checked: '', tabindex: '0', 'aria-level': '2', class: 'a b' });
});

test('text sets the content before the children', () => {
  const node = el('p', { text: 'Hello' }, ' and ', el('b'));
  assert.deepEqual(texts(node), ['Hello', ' and ', '<b>']);
  assert.deepEqual(node.attributes, {});
});

test('dataset and style are objects; their null values are left out', () => {
  const node = el('tr', { dataset: { id: 7, name: 'Row', gone: null }, style: { 'padding-left': '20px', '--swatch': 'red', top: undefined } });
  assert.deepEqual(node.dataset, { id: '7', name: 'Row' });
  assert.deepEqual(node.properties, { 'padding-left': '20px', '--swatch': 'red' });
  assert.deepEqual(node.attributes, {});
  // A style string would be a style attribute, which the page's CSP blocks.
  assert.throws(() => el('div', { style: 'color: red' }), /style must be an object/);
});

test('on<event> props are listeners, and must be functions (no inline handlers)', () => {
  const click = () => {};
  const node = el('button', { onclick: click, ondblclick: undefined });
  assert.deepEqual(node.listeners, { click });
  assert.deepEqual(node.attributes, {});
  assert.throws(() => el('button', { onclick: 'alert(1)' }), /onclick must be a function/);
});

test('children: nested arrays flatten, numbers become text, null/undefined/false are skipped', () => {
  const node = el('ul', {}, [el('li'), [el('li'), null]], 0, false, undefined, 'end');
  assert.deepEqual(texts(node), ['<li>', '<li>', '0', 'end']);
});

test('svg() builds in the SVG namespace with the same treatment', () => {
  const node = svg('g', { class: 'cg-node', transform: 'translate(1,2)', dataset: { id: 'n1' }, tabindex: 0 }, svg('title', {}, 'Name'));
  assert.equal(node.namespace, 'http://www.w3.org/2000/svg');
  assert.deepEqual(node.attributes, { class: 'cg-node', transform: 'translate(1,2)', tabindex: '0' });
  assert.deepEqual(node.dataset, { id: 'n1' });
  assert.equal(node.children[0].namespace, 'http://www.w3.org/2000/svg');
});

test('tooltips carry no bidirectional controls: a right-to-left override cannot reverse them', () => {
  const name = 'Evil\u202eppA.json \u2066x\u2069 \u202ay\u202c';
  assert.equal(el('h1', { title: name }).attributes.title, 'EvilppA.json x y');
  assert.equal(el('h1', { text: name }).children[0].text, name, 'text shown in the page keeps them (it is isolated there)');
  assert.deepEqual(texts(svg('title', {}, name, ' \u202edone')), ['EvilppA.json x y', ' done']);
  assert.deepEqual(texts(svg('title', { text: name })), ['EvilppA.json x y']);
  assert.equal(tooltipText(42), '42');
});

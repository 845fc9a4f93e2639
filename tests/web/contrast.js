// WCAG 2.1 contrast of every visible text on the page against the background it is drawn on (the
// nearest ancestor with an opaque background, translucent layers composited on the way). Returns the
// lowest ratio found and the texts below 4.5:1 (3:1 for large text: 24 px, or 18.66 px bold).
// Disabled controls are exempt (WCAG 1.4.3). Run by tests/web/test_web_browser.py on every page it
// photographs.
const rgba = (text) => {
  const m = text.match(/[\d.]+/g) || [];
  return m.map(Number).concat([1]).slice(0, 4);
};
const over = (top, under) => {
  const a = top[3];
  return [0, 1, 2].map((i) => top[i] * a + under[i] * (1 - a)).concat([1]);
};
const lum = (c) => {
  const f = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; };
  return 0.2126 * f(c[0]) + 0.7152 * f(c[1]) + 0.0722 * f(c[2]);
};
const backdrop = (el) => {
  const layers = [];
  for (let node = el; node && node.nodeType === 1; node = node.parentElement) {
    const c = rgba(getComputedStyle(node).backgroundColor);
    if (c[3] > 0) { layers.push(c); if (c[3] >= 1) break; }
  }
  let colour = [255, 255, 255, 1];
  for (const layer of layers.reverse()) colour = over(layer, colour);
  return colour;
};
const failures = [];
let lowest = 99;
for (const el of document.querySelectorAll('body *')) {
  const own = Array.from(el.childNodes).some((n) => n.nodeType === 3 && n.textContent.trim());
  if (!own || el.closest('[disabled], .skip, .visually-hidden')) continue;
  const style = getComputedStyle(el);
  const box = el.getBoundingClientRect();
  if (style.visibility === 'hidden' || style.display === 'none' || !box.width || !box.height) continue;
  let opacity = 1;
  for (let n = el; n && n.nodeType === 1; n = n.parentElement) opacity *= Number(getComputedStyle(n).opacity);
  const back = backdrop(el);
  const fore = rgba(style.color);
  fore[3] *= opacity;
  const [a, b] = [lum(over(fore, back)), lum(back)];
  const ratio = (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
  const size = parseFloat(style.fontSize);
  const need = size >= 24 || (Number(style.fontWeight) >= 700 && size >= 18.66) ? 3 : 4.5;
  lowest = Math.min(lowest, ratio);
  if (ratio < need) failures.push(`${el.tagName.toLowerCase()}.${el.className}: ${ratio.toFixed(2)} < ${need}`);
}
return {lowest: lowest, failures: failures.slice(0, 10)};

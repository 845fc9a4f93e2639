// parley console: the rating form (needs common.js). One fieldset of radio buttons per Likert item,
// an optional comment; stored with the run under the signed-in principal's name.
"use strict";

let instrumentsCache = null;

async function instrumentFor(kind) {
  if (instrumentsCache === null) instrumentsCache = await api("/api/instruments");
  return instrumentsCache.find((instrument) => instrument.kinds.includes(kind)) || null;
}

// target: { run: "play/abc" } for a saved run, or { session: "staffing-1" } for a finished delegate
// session (its record is exported to the runs folder when rated); kind picks the instrument.
async function ratingForm(container, target) {
  const instrument = await instrumentFor(target.kind);
  if (!container || !instrument) return;
  const prefix = `rate-${instrument.key}`;
  const path = target.session
    ? `/api/sessions/${encodeURIComponent(target.session)}/ratings`
    : `/api/runs/${runPath(target.run)}/ratings`;
  const result = el("p", { class: "rating-result", role: "status", "aria-live": "polite" });
  const items = instrument.items.map((item) => {
    const name = `${prefix}-${item.key}`;
    return el("fieldset", { class: "likert" },
      el("legend", {}, el("span", { class: "label", text: item.label }), ` — ${item.question}`),
      el("div", { class: "scale" }, ...item.anchors.map((anchor, index) => {
        const id = `${name}-${index + 1}`;
        return el("span", { class: "point" },
          el("input", { type: "radio", name, id, value: String(index + 1), required: true }),
          el("label", { for: id }, el("span", { class: "score", text: String(index + 1) }), ` ${anchor}`));
      })));
  });
  const comment = el("textarea", { id: `${prefix}-comment`, rows: "2", maxlength: "2000" });
  const form = el("form", {
    class: "rating card",
    "aria-labelledby": `${prefix}-title`,
    onsubmit: async (event) => {
      event.preventDefault();
      const scores = {};
      for (const item of instrument.items) {
        const chosen = form.querySelector(`input[name="${prefix}-${item.key}"]:checked`);
        if (!chosen) { result.textContent = `Rate “${item.label}” too.`; result.classList.add("error"); return; }
        scores[item.key] = Number(chosen.value);
      }
      const button = form.querySelector("button[type=submit]");
      button.disabled = true;
      try {
        const stored = await api(path, { instrument: instrument.key, scores, comment: comment.value });
        result.classList.remove("error");
        result.textContent = `Thank you: your rating was stored with the run (${stored.rated_by}, ${when(stored.rated_at)}).`;
      } catch (error) {
        result.classList.add("error");
        result.textContent = `Rating not stored: ${error.detail || error.message}`;
      } finally {
        button.disabled = false;
      }
    },
  },
  el("h3", { id: `${prefix}-title`, text: `Rate it: ${instrument.title}` }),
  el("p", { class: "muted", text: `Instrument: ${instrument.source}.` }),
  ...items,
  el("label", { for: `${prefix}-comment`, class: "label", text: "Comment (optional)" }), comment,
  el("p", {}, el("button", { type: "submit" }, "Submit rating")),
  result);
  container.replaceChildren(form);
}

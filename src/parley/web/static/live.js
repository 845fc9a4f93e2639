// parley console: live views pushed by the server (server-sent events; needs common.js and rating.js).
// A delegate session sends a snapshot on every change; a mediated conversation sends each turn.
"use strict";

let source = null;
const SVG = "http://www.w3.org/2000/svg";

function connected(on, text) {
  $("live").textContent = text;
  $("live").classList.toggle("off", !on);
}

function stopWatching() {
  if (source) { source.close(); source = null; }
  connected(false, "not connected");
}

function svg(tag, attrs) {
  const node = document.createElementNS(SVG, tag);
  for (const [key, value] of Object.entries(attrs)) node.setAttribute(key, String(value));
  return node;
}

// A line chart of values in [0, 1] drawn with DOM calls (numbers only: nothing is parsed as markup).
function chart(points, label, markers) {
  const width = 360, height = 140, pad = 24;
  const turns = points.map((p) => p.x);
  const maxX = Math.max(1, ...turns, ...(markers || []));
  const x = (v) => pad + (v / maxX) * (width - 2 * pad);
  const y = (v) => height - pad - Math.max(0, Math.min(1, v)) * (height - 2 * pad);
  const root = svg("svg", { viewBox: `0 0 ${width} ${height}`, class: "chart", role: "img", "aria-label": label });
  root.append(svg("line", { x1: pad, y1: y(0), x2: width - pad, y2: y(0), stroke: "#8c959f" }));
  root.append(svg("line", { x1: pad, y1: y(1), x2: width - pad, y2: y(1), stroke: "#d0d7de", "stroke-dasharray": "3 3" }));
  for (const m of markers || []) root.append(svg("line", { x1: x(m), y1: y(0), x2: x(m), y2: y(1), stroke: "#b3261e", "stroke-dasharray": "4 3" }));
  if (points.length) {
    root.append(svg("polyline", { points: points.map((p) => `${x(p.x)},${y(p.y)}`).join(" "), fill: "none", stroke: "#0b57d0", "stroke-width": 2 }));
    for (const p of points) root.append(svg("circle", { cx: x(p.x), cy: y(p.y), r: 3, fill: "#0b57d0" }));
  }
  const caption = svg("text", { x: pad, y: 14, "font-size": 11, fill: "#1b1f24" });
  caption.textContent = label;
  root.append(caption);
  return root;
}

// -- delegate sessions --------------------------------------------------------------------------------

function sessionView(s) {
  const states = [];
  for (const point of s.tci_curve) if (states[states.length - 1] !== point.state) states.push(point.state);
  return [
    el("h3", { text: s.session_id }),
    el("dl", { class: "card" },
      el("dt", { text: "State" }), el("dd", { text: `${s.state}${s.paused ? " (waiting for the principal)" : ""}${s.terminal ? " (ended)" : ""} after ${s.turns} turns` }),
      el("dt", { text: "TCI" }), el("dd", { text: `${percent(s.tci.tci_weighted)}; missing: ${s.tci.missing.join(", ") || "nothing"}` })),
    el("h4", { text: "Where the state machine has been" }),
    el("ol", { class: "states", "aria-label": "States visited" }, ...states.map((name, i) =>
      el("li", { class: i === states.length - 1 ? "current" : "", "aria-current": i === states.length - 1 ? "step" : null, text: name }))),
    chart(s.tci_curve.map((p) => ({ x: p.turn, y: p.tci })), "Task Completeness Index by turn (red: escalations)",
      s.tci_curve.filter((p) => p.state === "ESCALATE").map((p) => p.turn)),
    el("h4", { text: `Safety events (${s.safety.length})` }),
    s.safety.length ? el("ul", {}, ...s.safety.map((e) => el("li", { text: `turn ${e.turn} · ${e.kind}: ${e.text}` }))) : el("p", { class: "muted", text: "None so far." }),
    el("h4", { text: `Escalations (${s.escalations.length})` }),
    s.escalations.length ? el("ul", {}, ...s.escalations.map((e) => el("li", {},
      el("span", { class: "trigger", text: e.trigger }), ` ${e.status}: ${e.problem}`,
      e.status === "open" ? el("span", {}, " — ", el("a", { href: "/" }, "decide in the inbox")) : null))) : el("p", { class: "muted", text: "None so far." }),
    el("h4", { text: "Transcript" }),
    el("ol", { class: "transcript", tabindex: "0", "aria-label": "Transcript" }, ...s.transcript.map((t) => el("li", { class: t.kind },
      el("span", { class: `speaker ${t.speaker}`, text: `${t.speaker}: ` }), t.text))),
    s.terminal ? el("div", { id: "live-rating" }) : null,
  ].filter(Boolean);
}

function watchSession(sessionId) {
  stopWatching();
  setQuery("mediation", null);
  setQuery("session", sessionId);
  $("view-body").replaceChildren(el("p", { class: "muted", text: `Connecting to ${sessionId}…` }));
  source = new EventSource(`/api/live/sessions/${encodeURIComponent(sessionId)}/events`);
  source.addEventListener("open", () => connected(true, "live"));
  source.addEventListener("snapshot", (event) => {
    const snapshot = JSON.parse(event.data);
    $("view-body").replaceChildren(...sessionView(snapshot));
    const transcript = $("view-body").querySelector("ol.transcript");
    if (transcript) transcript.scrollTop = transcript.scrollHeight;
    if (snapshot.terminal) ratingForm($("live-rating"), { session: snapshot.session_id, kind: "delegate" }).catch(() => {});
  });
  source.addEventListener("end", () => { stopWatching(); connected(false, "session ended"); });
  source.addEventListener("refused", (event) => { stopWatching(); say(`Not shown: ${JSON.parse(event.data).detail}`, true); });
  source.addEventListener("error", () => connected(false, "reconnecting…"));
}

// -- mediated conversations ---------------------------------------------------------------------------

function mediationShell(info) {
  const consensus = el("div", { id: "consensus", "aria-live": "off" });
  return [
    el("h3", { text: `${info.case} · ${info.mediator} mediator · ${info.mode}` }),
    el("h4", { text: "Consensus" }), consensus,
    el("div", { id: "consensus-chart" }),
    el("h4", { text: "Conversation" }),
    el("ol", { id: "conversation", class: "transcript", tabindex: "0", "aria-label": "Conversation" }),
    el("div", { id: "mediation-end" }),
  ];
}

function watchMediation(info) {
  stopWatching();
  setQuery("session", null);
  setQuery("mediation", info.mediation_id);
  $("view-body").replaceChildren(...mediationShell(info));
  const group = [];
  const interventions = [];
  source = new EventSource(`/api/live/mediations/${encodeURIComponent(info.mediation_id)}/events`);
  source.addEventListener("open", () => connected(true, "live"));
  source.addEventListener("event", (message) => {
    const e = JSON.parse(message.data);
    if (e.kind === "utterance" || e.kind === "intervention") {
      if (e.kind === "intervention") interventions.push(e.turn);
      $("conversation").append(el("li", { class: e.kind === "intervention" ? "decision" : "" },
        el("span", { class: "meta", text: `turn ${e.turn} · ` }),
        el("span", { class: "speaker", text: `${e.speaker}${e.kind === "intervention" ? " (mediator)" : ""}: ` }), e.text));
      $("conversation").scrollTop = $("conversation").scrollHeight;
    } else if (e.kind === "consensus") {
      group.push({ x: e.turn, y: e.group });
      $("consensus").replaceChildren(
        el("p", { class: "consensus-row" }, el("span", { class: "label", text: "group" }),
          el("meter", { min: "0", max: "1", value: String(e.group) }), el("span", { text: num(e.group) })),
        ...Object.entries(e.topics).map(([topic, value]) => el("p", { class: "consensus-row" },
          el("span", { text: topic }), el("meter", { min: "0", max: "1", value: String(value) }), el("span", { text: num(value) }))));
      $("consensus-chart").replaceChildren(chart(group, "Group consensus by turn (red: interventions)", interventions));
    } else if (e.kind === "ended") {
      $("conversation").append(el("li", { class: "muted", text: `The conversation ended (${e.reason}).` }));
    }
  });
  source.addEventListener("end", (message) => {
    const end = JSON.parse(message.data);
    stopWatching();
    connected(false, "finished");
    if (end.error) { say(`The conversation failed: ${end.error}`, true); return; }
    $("mediation-end").replaceChildren(
      el("p", {}, el("a", { href: `/runs?run=${encodeURIComponent(end.run)}` }, "Open it in the run browser (plots and metrics)")),
      el("div", { id: "mediation-rating" }));
    ratingForm($("mediation-rating"), { run: end.run, kind: "mediation" }).catch(() => {});
    loadMediations().catch(() => {});
  });
  source.addEventListener("error", () => connected(false, "reconnecting…"));
}

async function loadMediations() {
  const list = await api("/api/live/mediations");
  const fill = (id, values) => { if (!$(id).options.length) $(id).replaceChildren(...values.map((v) => el("option", { value: v }, v))); };
  fill("case", list.cases);
  fill("mediator", list.mediators);
  fill("mode", list.modes);
  $("mediations").replaceChildren(...list.mediations.map((m) => el("li", {}, el("button", {
    type: "button", onclick: () => watchMediation(m),
  }, `${m.case} · ${m.mediator} · ${m.mode} — ${m.done ? (m.error ? "failed" : "finished") : "running"} (started by ${m.started_by})`))));
  return list;
}

async function loadSessions() {
  const list = await api("/api/sessions");
  $("session").replaceChildren(...list.sessions.map((s) => el("option", { value: s.session_id }, `${s.session_id} — ${s.state}`)));
  if (!list.sessions.length) $("session").append(el("option", { value: "", disabled: true }, "no sessions yet"));
}

async function start() {
  $("watch-session").addEventListener("submit", (event) => {
    event.preventDefault();
    if ($("session").value) watchSession($("session").value);
  });
  $("start-mediation").addEventListener("submit", async (event) => {
    event.preventDefault();
    $("start").disabled = true;
    try {
      const info = await api("/api/live/mediations", {
        case: $("case").value, mediator: $("mediator").value, mode: $("mode").value,
        seed: Number($("mseed").value || 0), pace: Number($("pace").value || 0),
      });
      say(`Started: ${info.case} with the ${info.mediator} mediator.`);
      watchMediation(info);
      await loadMediations();
    } catch (error) {
      say(`Could not start: ${error.detail || error.message}`, true);
    } finally {
      $("start").disabled = false;
    }
  });
  const [list] = await Promise.all([loadMediations(), loadSessions()]);
  const sessionId = query("session");
  const mediationId = query("mediation");
  if (sessionId) watchSession(sessionId);
  else if (mediationId) {
    const found = list.mediations.find((m) => m.mediation_id === mediationId);
    if (found) watchMediation(found);
  }
}

window.addEventListener("beforeunload", stopWatching);
startPage(start);

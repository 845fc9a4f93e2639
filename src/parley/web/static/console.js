// parley console: inbox of escalations, decisions, session transcripts and audit status (needs common.js).
// Every server string is inserted as text, never as HTML: counterparty messages are untrusted input.
// Decisions name the request they answer and the session version they were made on.
"use strict";

let currentSession = null;

function messageList(messages) {
  return el("div", { class: "messages" }, ...messages.map((m) =>
    el("p", {}, el("span", { class: `speaker ${m.speaker}`, text: `${m.speaker}: ` }), m.text)));
}

async function decideOn(item, body, card) {
  const sessionId = item.session_id;
  for (const button of card.querySelectorAll("button")) button.disabled = true;
  try {
    const result = await api(`/api/sessions/${encodeURIComponent(sessionId)}/decide`,
      { ...body, request_id: item.request.request_id, version: item.version });
    const next = result.pending ? `waiting again (${result.pending.trigger})` : result.state;
    const done = result.replayed ? "was already recorded" : "recorded";
    say(`Decision ${done} for ${sessionId}: the session resumed and is now ${next}.`);
    await refresh();
    await openSession(sessionId);
  } catch (error) {
    if (error.status === 409) {
      // Answered meanwhile (another tab or principal) or the session moved on: show what is current.
      say(`Decision not recorded: ${error.detail}. The inbox now shows the current state.`, true);
      await refresh().catch(() => {});
      await openSession(sessionId);
      return;
    }
    for (const button of card.querySelectorAll("button")) button.disabled = false;
    if (error.status === 422 && error.detail.endsWith("repeat the new limit (confirm_limit)") && body.confirm_limit === undefined) {
      // A raise far beyond the current limit: the principal types the new limit to confirm it.
      const typed = window.prompt(`${error.detail}\n\nType the new limit to confirm the raise:`, "");
      const limit = Number((typed || "").replace(/[^0-9.]/g, ""));
      if (typed && limit > 0) { await decideOn(item, { ...body, confirm_limit: limit }, card); return; }
      say("Raise not confirmed: nothing was decided.", true);
      return;
    }
    say(`Decision not recorded: ${error.message}`, true);
  }
}

function situation(request) {
  const ledger = request.ledger;
  const known = Object.entries(ledger.revealed).map(([k, v]) => `${k} = ${show(v)}`).join("; ");
  return el("dl", {},
    el("dt", { text: "Situation" }),
    el("dd", { text: `${request.state}; TCI ${percent(ledger.tci)} (weighted ${percent(ledger.tci_weighted)})` }),
    el("dt", { text: "Known" }), el("dd", { text: known || "nothing yet" }),
    el("dt", { text: "Missing" }), el("dd", { text: ledger.missing.join(", ") || "nothing" }),
    el("dt", { text: "Problem" }), el("dd", { text: request.problem }),
    request.safety_events.length ? el("dt", { text: "Safety events" }) : null,
    request.safety_events.length ? el("dd", { text: request.safety_events.join(", ") }) : null,
    ...quotedList("Conditions attached", (request.conditions || []).map(conditionText)),
    // Sentences the delegate could not fully read (issue 17): never shown as conditions it read.
    ...quotedList("Not fully read by the delegate, as written (check them yourself)",
      (request.unexplained || []).map((c) => `“${c.text}”`)),
    ...quotedList("Stated but not read by the delegate (check them yourself)",
      (request.unread || []).map((text) => `“${text}”`)),
  );
}

function conditionText(condition) {
  if (condition.quoted) {
    const by = condition.source ? `, flagged by the ${condition.source}` : "";
    return `“${condition.text}” (not read by the delegate${by}: check it yourself)`;
  }
  const value = condition.value === null || condition.value === undefined ? "" : ` = ${show(condition.value)}`;
  return condition.text ? `${condition.term}${value} (“${condition.text}”)` : `${condition.term}${value}`;
}

// A labelled list of texts (inserted as text, never HTML), nothing when there are none.
function quotedList(label, texts) {
  if (!texts.length) return [];
  return [el("dt", { text: label }), el("dd", {}, el("ul", { class: "quotes" }, ...texts.map((t) => el("li", { text: t }))))];
}

// A portfolio's recommendation: its sessions side by side, the recommended one first.
function comparisonTable(rows) {
  if (!rows || !rows.length) return null;
  const head = ["", "Session", "Counterparty", "State", "Turns", "TCI", "Terms", "Score", "Flags"];
  return el("div", { class: "table-wrap" }, el("table", { class: "runs comparison" },
    el("caption", { text: "The sessions compared (score: your utility of the terms, 0-1)" }),
    el("thead", {}, el("tr", {}, ...head.map((h) => el("th", { scope: "col", text: h })))),
    el("tbody", {}, ...rows.map((row) => el("tr", {},
      el("td", { text: row.rank === 1 ? "recommended" : (row.rank ? `#${row.rank}` : "no offer") }),
      el("td", { text: row.session_id }),
      el("td", { text: row.counterparty }),
      el("td", { text: row.note ? `${row.state} (${row.note})` : row.state }),
      el("td", { class: "num", text: String(row.turns) }),
      el("td", { class: "num", text: percent(row.tci) }),
      el("td", { text: Object.entries(row.terms).map(([k, v]) => `${k} = ${show(v)}`).join("; ") || "none" }),
      el("td", { class: "num", text: row.score === null ? "-" : row.score.toFixed(2) }),
      el("td", { text: Object.entries(row.flags).map(([k, n]) => (n > 1 ? `${k}×${n}` : k)).join(", ") || "none" }),
    )))));
}

function escalationCard(item) {
  const request = item.request;
  const card = el("article", { class: "card", "aria-labelledby": `h-${request.request_id}` });
  const options = el("ul", { class: "options" }, ...request.options.map((option) => {
    const tradeId = `t-${request.request_id}-${option.key}`;
    return el("li", {},
      el("button", {
        type: "button", "aria-describedby": tradeId, "data-option": option.key,
        onclick: () => decideOn(item, { option: option.key }, card),
      }, `Choose ${option.key}`),
      el("div", {}, el("span", { class: "label", text: `(${option.key}) ${option.title}` }),
        el("p", { class: "trade muted", id: tradeId, text: option.trade_offs })));
  }));
  const guidanceId = `g-${request.request_id}`;
  const guidance = el("form", {
    class: "guidance",
    onsubmit: (event) => {
      event.preventDefault();
      const text = $(guidanceId).value.trim();
      if (!text) { say("Write the guidance first.", true); $(guidanceId).focus(); return; }
      decideOn(item, { guidance: text }, card);
    },
  },
  el("label", { for: guidanceId, text: "Or give guidance instead (e.g. “Go to $102K at most”)" }),
  el("textarea", { id: guidanceId, rows: "2" }),
  el("button", { type: "submit", class: "secondary" }, "Send guidance"));
  card.append(
    el("h3", { id: `h-${request.request_id}` },
      el("span", { class: "trigger", text: request.trigger }), ` ${item.session_id}`),
    el("p", { class: "muted", text: `${item.config} · counterparty ${item.counterparty || "unknown"} · request ${request.request_id}` }),
    situation(request),
    comparisonTable(request.comparison),
    el("p", { class: "label", text: "Last messages" }), messageList(request.last_messages),
    options, el("p", {}, el("span", { class: "label", text: "Request: " }), request.ask),
    guidance,
    el("button", { type: "button", class: "secondary", onclick: () => openSession(item.session_id) },
      "Open transcript"));
  return card;
}

async function loadInbox() {
  const inbox = await api("/api/inbox");
  const items = $("inbox-items");
  items.replaceChildren(...(inbox.items.length
    ? inbox.items.map(escalationCard)
    : [el("p", { class: "muted", text: "No decisions are waiting." })]));
  $("inbox-count").textContent = `(${inbox.items.length} waiting)`;
}

async function loadSessions() {
  const list = await api("/api/sessions");
  $("sessions").replaceChildren(...list.sessions.map((s) => el("li", {},
    el("button", {
      type: "button", "aria-current": String(s.session_id === currentSession),
      onclick: () => openSession(s.session_id),
    }, `${s.session_id} — ${s.state}${s.pending_request ? " (decision pending)" : ""}`))));
  if (!list.sessions.length) $("sessions").append(el("li", { class: "muted", text: "No sessions yet." }));
}

function auditLine(audit) {
  if (audit.ok) {
    return el("p", { class: "audit-ok" },
      `Audit log intact: ${audit.entries} entries, head ${audit.head.slice(0, 16)}…`);
  }
  return el("div", {},
    el("p", { class: "audit-broken", text: `Audit log BROKEN at entry ${audit.first_bad}` }),
    el("ul", {}, ...audit.problems.map((p) => el("li", { text: p }))));
}

function replyForm(detail) {
  const id = "reply-text";
  return el("form", {
    class: "reply",
    onsubmit: async (event) => {
      event.preventDefault();
      const text = $(id).value.trim();
      if (!text) { say("Write the counterparty's message first.", true); $(id).focus(); return; }
      try {
        const result = await api(`/api/sessions/${encodeURIComponent(detail.session_id)}/reply`, { message: text });
        say(`Message delivered to ${detail.session_id}: now ${result.state}.`);
        await refresh();
        await openSession(detail.session_id);
      } catch (error) {
        say(`Message not delivered: ${error.message}`, true);
      }
    },
  },
  el("label", { for: id, text: "Counterparty message received on another channel (e-mail, chat)" }),
  el("textarea", { id, rows: "2" }),
  el("button", { type: "submit", class: "secondary" }, "Deliver to the delegate"));
}

async function openSession(sessionId) {
  currentSession = sessionId;
  const path = `/api/sessions/${encodeURIComponent(sessionId)}`;
  try {
    const [detail, audit] = await Promise.all([api(path), api(`${path}/audit`)]);
    const terms = Object.entries(detail.terms).map(([k, v]) => `${k} = ${show(v)}`).join("; ");
    const body = $("session-body");
    const parts = [
      el("h3", { text: detail.session_id }),
      el("dl", { class: "card" },
        el("dt", { text: "State" }), el("dd", { text: `${detail.state} after ${detail.turns} turns` }),
        el("dt", { text: "TCI" }),
        el("dd", { text: `${percent(detail.tci.tci)} (weighted ${percent(detail.tci.tci_weighted)}); missing: ${detail.tci.missing.join(", ") || "nothing"}` }),
        el("dt", { text: "Terms" }), el("dd", { text: terms || "none agreed" }),
        el("dt", { text: "Audit" }), el("dd", {}, auditLine(audit))),
      el("p", { class: "links" },
        el("a", { href: `${path}/trajectory`, download: "" }, "Download the trajectory (JSONL)"),
        el("a", { href: `/live?session=${encodeURIComponent(detail.session_id)}` }, "Watch it live")),
      detail.terminal ? el("div", { id: "session-rating" }) : null,
      detail.paused || detail.terminal ? null : replyForm(detail),
      el("h4", { id: "transcript-heading", text: "Transcript (latest at the bottom)" }),
      el("ol", { class: "transcript", id: "transcript", tabindex: "0", "aria-labelledby": "transcript-heading" },
        ...detail.transcript.map((entry) =>
        el("li", { class: entry.kind },
          el("span", { class: `speaker ${entry.speaker}`, text: `${entry.speaker}: ` }), entry.text))),
    ];
    body.replaceChildren(...parts.filter((part) => part !== null));
    $("transcript").scrollTop = $("transcript").scrollHeight;
    if (detail.terminal) await ratingForm($("session-rating"), { session: detail.session_id, kind: "delegate" });
    await loadSessions();
  } catch (error) {
    say(`Could not load ${sessionId}: ${error.message}`, true);
  }
}

async function refresh() {
  const health = await api("/api/health");
  $("health").textContent = `parley ${health.version} · ${health.database} · ${health.sessions} sessions`;
  await Promise.all([loadInbox(), loadSessions()]);
}

startPage(refresh);

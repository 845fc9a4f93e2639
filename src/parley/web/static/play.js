// parley console: play a negotiation against an agent (needs common.js and rating.js).
// The game lives on the server (a game id in the address); every move names the turn it was made on,
// so a second click or another tab is refused (409) and the page reloads the current state.
"use strict";

let options = null;
let state = null;
let pending = null; // the move the preview would send: {kind, package, message}

function gamePath(suffix) {
  return `/api/games/${encodeURIComponent(state.game_id)}${suffix || ""}`;
}

// -- set-up -------------------------------------------------------------------------------------------

function fillParties() {
  const scenario = options.scenarios.find((s) => s.name === $("scenario").value);
  $("party").replaceChildren(...(scenario ? scenario.parties : []).map((p) => el("option", { value: p }, p)));
}

async function loadOptions() {
  options = await api("/api/play/options");
  $("scenario").replaceChildren(...options.scenarios.map((s) =>
    el("option", { value: s.name }, `${s.title} (${s.name}, ${s.outcomes} outcomes)`)));
  $("agent").replaceChildren(...options.agents.map((a) =>
    el("option", { value: a.name, title: a.description }, `${a.name} — ${a.description}`)));
  if (options.agents.some((a) => a.name === "astra")) $("agent").value = "astra";
  fillParties();
}

async function loadGames() {
  const list = await api("/api/games");
  $("games").replaceChildren(...list.games.map((g) => el("li", {},
    el("a", { href: `/play?game=${encodeURIComponent(g.game_id)}` },
      `${g.scenario}: you play ${g.party} against ${g.agent} — ${g.ended ? "over" : `your move ${g.version + 1}`} (${when(g.created)})`))));
  if (!list.games.length) $("games").append(el("li", { class: "muted", text: "No games yet." }));
}

async function startGame(event) {
  event.preventDefault();
  $("start").disabled = true;
  try {
    const body = {
      scenario: $("scenario").value, party: $("party").value, agent: $("agent").value,
      seed: Number($("seed").value || 0), coach: $("use-coach").checked,
    };
    state = await api("/api/games", body);
    setQuery("game", state.game_id);
    say(`Game started: you play ${state.party} against ${state.agent}.`);
    render();
    $("brief-heading").focus();
  } catch (error) {
    say(`Could not start the game: ${error.detail || error.message}`, true);
  } finally {
    $("start").disabled = false;
  }
}

// -- showing the game ---------------------------------------------------------------------------------

function briefView(brief) {
  const rows = brief.rows.map((row) => el("tr", {},
    el("th", { scope: "row", text: row.issue }), el("td", { text: row.summary })));
  return el("div", { class: "card brief" },
    el("p", {}, el("span", { class: "label", text: `You play ${brief.party}` }), brief.role && brief.role !== brief.party ? ` (${brief.role})` : ""),
    brief.text ? el("p", { class: "brief-text", text: brief.text }) : null,
    rows.length ? el("table", { class: "points" },
      el("caption", { text: "What each issue is worth to you" }),
      el("thead", {}, el("tr", {}, el("th", { scope: "col", text: "Issue" }), el("th", { scope: "col", text: "Your points" }))),
      el("tbody", {}, ...rows)) : null,
    brief.note ? el("p", { class: "muted", text: brief.note }) : null,
    el("p", { class: "walk-away" },
      withTerms(`Your walk-away value is ${num(brief.walk_away)}; the best possible deal is worth ${num(brief.best)} to you.`,
        state.glossary, ["walk-away value"])));
}

function tableView() {
  const table = state.table;
  if (!state.your_turn) return null;
  if (!table) return el("p", { class: "card muted", text: "No offer from them is on the table yet: make one, or ask what matters to them." });
  const confirmId = "accept-confirm";
  const warn = table.below_walk_away;
  const card = el("div", { class: `card offer${warn ? " below" : ""}`, "aria-labelledby": "offer-heading" },
    el("h3", { id: "offer-heading", text: "On the table: their offer" }),
    el("p", { class: "offer-text", text: table.text }),
    el("p", {}, el("strong", { text: `Worth ${num(table.worth)} to you` }),
      withTerms(` (your walk-away value: ${num(state.brief.walk_away)}).`, state.glossary, ["walk-away value"])),
    warn ? el("p", { class: "warning", role: "alert", text: "This is worth less to you than walking away." }) : null,
    warn ? el("p", {}, el("input", { type: "checkbox", id: confirmId }),
      el("label", { for: confirmId, text: " I understand, and want to be able to accept it anyway" })) : null,
    el("p", { class: "buttons" },
      el("button", { type: "button", id: "accept", onclick: () => acceptOffer(warn) }, "Accept their offer"),
      el("button", { type: "button", id: "reject", class: "secondary", onclick: () => send({ kind: "reject", message: "" }) }, "Turn it down")));
  return card;
}

function transcriptView() {
  return state.transcript.map((line) => el("li", { class: `line ${line.who}` },
    el("span", { class: "meta", text: `round ${line.round} · ` }),
    el("span", { class: `speaker ${line.who}`, text: line.who === "you" ? "You: " : line.who === "them" ? `${state.other} (${state.agent}): ` : "" }),
    line.text,
    line.offer ? el("span", { class: "offer-line", text: ` [${line.offer} — worth ${num(line.worth)} to you]` }) : null));
}

function controlsView() {
  return state.controls.map((control) => {
    const id = `control-${control.issue}`;
    return el("p", { class: "control" },
      el("label", { for: id, class: "label", text: control.label }),
      el("select", { id, "data-issue": control.issue, onchange: () => checkBuilt() },
        ...control.choices.map((choice, index) => el("option", { value: String(index) },
          choice.points === null ? choice.label : `${choice.label} (${num(choice.points)} points)`))));
  });
}

function builtPackage() {
  const pkg = {};
  for (const control of state.controls) {
    const select = $(`control-${control.issue}`);
    pkg[control.issue] = control.choices[Number(select.value)].value;
  }
  return pkg;
}

function setBuilt(pkg) {
  for (const control of state.controls) {
    const index = control.choices.findIndex((c) => c.value === pkg[control.issue]);
    if (index >= 0) $(`control-${control.issue}`).value = String(index);
  }
}

function coachView() {
  const advice = state.advice;
  if (!state.coach) return [el("p", { class: "muted", text: "The coach is off for this game." })];
  if (!advice) return [el("p", { class: "muted", text: state.ended ? "The game is over." : "Waiting for your move." })];
  const glossary = state.glossary;
  return [
    el("p", {}, withTerms(advice.reading, glossary, advice.terms)),
    el("p", { class: "advice" }, el("strong", {}, withTerms(advice.action, glossary, advice.terms))),
    advice.package_text ? el("div", { class: "card suggestion" },
      el("p", {}, withTerms(`${advice.package_text} (worth ${num(advice.package_worth)} to you)`, glossary, advice.terms)),
      el("button", { type: "button", class: "secondary", onclick: () => { setBuilt(advice.package); checkBuilt(); $("preview").focus(); } }, "Use this offer")) : null,
    advice.reasons.length ? el("ul", { class: "reasons" }, ...advice.reasons.map((r) => el("li", {}, withTerms(r, glossary, advice.terms)))) : null,
    glossaryList(glossary, advice.terms),
  ];
}

function endView() {
  const end = state.ended;
  if (!end) return [];
  const parts = [
    el("div", { class: `card end ${end.agreement ? "deal" : "nodeal"}`, role: "status" },
      el("h3", { text: end.agreement ? "Deal" : "No deal" }),
      el("p", { text: end.text }),
      el("p", { text: `You got ${num(end.your_worth)} (your walk-away value: ${num(end.your_walk_away)}). ` +
        `They got ${num(end.their_worth)} (their walk-away value: ${num(end.their_walk_away)}), after ${end.rounds} rounds.` }),
      state.run ? el("p", {}, el("a", { href: `/runs?run=${encodeURIComponent(state.run)}` }, "See the whole game in the run browser")) : null,
      el("p", {}, el("a", { href: "/play" }, "Play again"))),
    el("div", { id: "rating" }),
  ];
  return parts;
}

function render() {
  $("setup").hidden = true;
  $("game").hidden = false;
  document.title = `${state.title} · Play · parley console`;
  $("brief").replaceChildren(briefView(state.brief),
    el("details", {}, el("summary", {}, "About this scenario (both sides know this)"), el("p", { text: state.description })));
  const table = state.table ? ` · their offer is worth ${num(state.table.worth)} to you` : "";
  $("strip").replaceChildren(withTerms(`Your walk-away value: ${num(state.brief.walk_away)} · best possible deal: ${num(state.brief.best)}${table}`, state.glossary, ["walk-away value"]),
    " · ", el("a", { href: "#brief-panel" }, "your points"));
  $("round").textContent = state.ended ? `(over after ${state.ended.rounds} rounds)` : `(round ${state.round} of ${state.max_rounds})`;
  $("on-table").replaceChildren(...[tableView()].filter(Boolean));
  $("transcript").replaceChildren(...transcriptView());
  $("transcript").scrollTop = $("transcript").scrollHeight;
  $("move-panel").hidden = !state.your_turn;
  if (state.your_turn) {
    $("controls").replaceChildren(...controlsView());
    $("preview").replaceChildren();
    pending = null;
  }
  $("coach").replaceChildren(...coachView().filter(Boolean));
  $("end").replaceChildren(...endView());
  if (state.ended && state.run) ratingForm($("rating"), { run: state.run, kind: "play" }).catch(() => {});
}

// -- previews and moves -------------------------------------------------------------------------------

function showPreview(preview, move) {
  pending = preview.kind ? move : null;
  const offer = preview.offer;
  const warn = offer && offer.below_walk_away && (move.kind === "propose" || move.kind === "accept");
  const confirmId = "preview-confirm";
  const parts = [
    preview.understood ? el("p", { class: "understood", text: preview.understood }) : null,
    offer ? el("p", {}, el("strong", { text: `Worth ${num(offer.worth)} to you` }), ` (your walk-away value: ${num(state.brief.walk_away)}).`) : null,
    warn ? el("p", { class: "warning", role: "alert", text: `That is less than walking away (${num(state.brief.walk_away)}).` }) : null,
    warn ? el("p", {}, el("input", { type: "checkbox", id: confirmId }), el("label", { for: confirmId, text: " I understand: send it anyway" })) : null,
    preview.problem ? el("p", { class: "problem", text: preview.problem }) : null,
    pending ? el("p", { class: "buttons" },
      el("button", { type: "button", id: "send", onclick: () => {
        const confirmed = warn ? $(confirmId).checked : false;
        if (warn && !confirmed) { say("Tick “send it anyway” first, or change the offer.", true); $(confirmId).focus(); return; }
        send({ ...pending, confirm_below_walk_away: confirmed });
      } }, move.kind === "propose" ? "Send this offer" : move.kind === "walk" ? "Walk away now" : "Send"),
      el("button", { type: "button", class: "secondary", onclick: () => { pending = null; $("preview").replaceChildren(); } }, "Cancel")) : null,
  ];
  $("preview").replaceChildren(el("div", { class: `card ${warn ? "below" : ""}` }, ...parts.filter(Boolean)));
}

async function checkBuilt(event) {
  if (event) event.preventDefault();
  const pkg = builtPackage();
  const message = $("offer-message").value.trim();
  try {
    const preview = await api(gamePath("/preview"), { package: pkg, text: message || null });
    showPreview(preview, { kind: "propose", package: pkg, message });
  } catch (error) {
    await failed(error);
  }
}

async function readText(event) {
  event.preventDefault();
  const text = $("text").value.trim();
  if (!text) { say("Type a message first.", true); $("text").focus(); return; }
  try {
    const preview = await api(gamePath("/preview"), { text });
    const move = { kind: preview.kind, message: text };
    if (preview.kind === "propose") move.package = preview.offer.package;
    showPreview(preview, move);
  } catch (error) {
    await failed(error);
  }
}

function acceptOffer(warn) {
  if (warn && !$("accept-confirm").checked) {
    say("This deal is worth less to you than walking away: tick the box first if you want it anyway.", true);
    $("accept-confirm").focus();
    return;
  }
  send({ kind: "accept", message: "", confirm_below_walk_away: Boolean(warn) });
}

function walkAway() {
  showPreview({
    kind: "walk", understood: `You would walk away: the game ends without a deal, and you get your walk-away value (${num(state.brief.walk_away)}).`,
    offer: null, problem: "",
  }, { kind: "walk", message: "" });
  $("send").focus();
}

async function send(move) {
  for (const button of document.querySelectorAll("#move-panel button, #on-table button")) button.disabled = true;
  try {
    state = await api(gamePath("/moves"), { version: state.version, ...move });
    $("text").value = "";
    $("offer-message").value = "";
    say(state.ended ? "The game is over." : "Sent. Their answer is in the transcript.");
    render();
    (state.ended ? $("end") : $("transcript")).focus();
  } catch (error) {
    await failed(error);
  } finally {
    for (const button of document.querySelectorAll("#move-panel button, #on-table button")) button.disabled = false;
  }
}

async function failed(error) {
  if (error.status === 409) {
    say(`Not sent: ${error.detail}. The page now shows the game as it stands.`, true);
    await reload();
    return;
  }
  say(`Not sent: ${error.detail || error.message}`, true);
}

async function reload() {
  state = await api(gamePath(""));
  render();
}

async function start() {
  $("new-game").addEventListener("submit", startGame);
  $("scenario").addEventListener("change", fillParties);
  $("builder").addEventListener("submit", checkBuilt);
  $("free-text").addEventListener("submit", readText);
  $("walk").addEventListener("click", walkAway);
  for (const id of ["brief-heading", "end", "transcript", "preview"]) $(id).setAttribute("tabindex", "-1");
  $("transcript").setAttribute("tabindex", "0");
  const gameId = query("game");
  if (gameId) {
    try {
      state = await api(`/api/games/${encodeURIComponent(gameId)}`);
      render();
      return;
    } catch (error) {
      say(`Could not open that game: ${error.detail || error.message}`, true);
      setQuery("game", null);
    }
  }
  await Promise.all([loadOptions(), loadGames()]);
}

startPage(start);

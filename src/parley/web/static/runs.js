// parley console: the run browser (needs common.js and rating.js). Saved games, mediated conversations,
// delegate sessions and tournaments under the console's runs folder, with server-drawn plots.
"use strict";

let runs = [];
let currentRun = null;

function runButton(run) {
  return el("li", {}, el("button", {
    type: "button", "aria-current": String(run.run_id === currentRun), onclick: () => openRun(run.run_id),
  }, `${run.title} — ${run.kind}${run.ratings ? ` · ${run.ratings} rating${run.ratings === 1 ? "" : "s"}` : ""}`,
  el("span", { class: "muted", text: ` (${run.run_id}, ${when(run.modified)})` })));
}

function showRuns() {
  const kind = $("kind").value;
  const shown = runs.filter((run) => !kind || run.kind === kind);
  $("runs").replaceChildren(...(shown.length ? shown.map(runButton)
    : [el("li", { class: "muted", text: "No runs here yet. Play a game, or save runs with parley run --save, parley mediate --save or parley tournament --out into this folder." })]));
}

async function loadRuns() {
  const list = await api("/api/runs");
  runs = list.runs;
  $("root").textContent = `Folder: ${list.root}`;
  showRuns();
}

function interval(value) {
  if (!value || value.mean === null) return "—";
  if (value.low === null || value.count < 2) return num(value.mean);
  return `${num(value.mean)} (${num(value.low)}–${num(value.high)})`;
}

const COLUMNS = [
  ["agent", "Agent", (r) => r.agent, (r) => r.agent],
  ["games", "Games", (r) => String(r.games), (r) => r.games],
  ["failed", "Failed", (r) => String(r.failed), (r) => r.failed],
  ["normalized_utility", "Normalised utility (95% CI)", (r) => interval(r.normalized_utility), (r) => r.normalized_utility.mean],
  ["utility", "Utility", (r) => interval(r.utility), (r) => r.utility.mean],
  ["agreement_rate", "Agreement rate", (r) => interval(r.agreement_rate), (r) => r.agreement_rate.mean],
  ["walk_rate", "Walk rate", (r) => interval(r.walk_rate), (r) => r.walk_rate.mean],
  ["rounds", "Rounds", (r) => interval(r.rounds), (r) => r.rounds.mean],
  ["pareto_distance", "Distance to Pareto", (r) => interval(r.pareto_distance), (r) => r.pareto_distance.mean],
  ["llm_fallback_share", "LLM fallback share", (r) => r.llm_fallback_share === null ? "—" : percent(r.llm_fallback_share), (r) => r.llm_fallback_share],
];

function tournamentView(table) {
  let sortKey = "normalized_utility";
  let descending = true;
  const body = el("tbody");
  const head = el("tr");
  function draw() {
    const column = COLUMNS.find((c) => c[0] === sortKey);
    const rows = [...table.rows].sort((a, b) => {
      const x = column[3](a), y = column[3](b);
      if (x === y) return 0;
      if (x === null || x === undefined) return 1;
      if (y === null || y === undefined) return -1;
      return (x < y ? -1 : 1) * (descending ? -1 : 1);
    });
    body.replaceChildren(...rows.map((r) => el("tr", { class: r.failed ? "failed" : "" },
      ...COLUMNS.map(([key, , text], index) => index === 0
        ? el("th", { scope: "row", text: text(r) })
        : el("td", { class: "num", text: text(r), title: key === "failed" && r.first_error ? r.first_error : null })))));
    head.replaceChildren(...COLUMNS.map(([key, label]) => el("th", {
      scope: "col", "aria-sort": key === sortKey ? (descending ? "descending" : "ascending") : "none",
    }, el("button", { type: "button", onclick: () => { descending = key === sortKey ? !descending : key !== "agent"; sortKey = key; draw(); } },
      label + (key === sortKey ? (descending ? " ▼" : " ▲") : "")))));
  }
  draw();
  const failed = table.failed.length ? el("details", { open: true },
    el("summary", {}, `${table.failed.length} failed game rows`),
    el("ul", {}, ...table.failed.map((f) => el("li", { class: "error-text", text: `${f.game} (${f.agent}): ${f.error || "failed"}` })))) : el("p", { class: "muted", text: "No failed games." });
  return el("div", {},
    el("div", { class: "table-wrap" }, el("table", { class: "tournament" },
      el("caption", { text: "Per agent: means with 95% confidence intervals over played party-games (failed games left out). Click a heading to sort." }),
      el("thead", {}, head), body)),
    failed);
}

function detailView(detail) {
  const facts = el("dl", { class: "card" }, ...detail.facts.flatMap((f) => [el("dt", { text: f.label }), el("dd", { text: f.value })]));
  const plots = detail.plots.length ? el("div", { class: "plots" }, ...detail.plots.map((p) => el("figure", {},
    el("img", { src: p.url, alt: p.title, loading: "lazy", width: "700", height: "500" }),
    el("figcaption", { text: p.title })))) : null;
  const transcript = detail.transcript.length ? el("details", { open: detail.transcript.length < 80 },
    el("summary", {}, `Transcript (${detail.transcript.length} lines)`),
    el("ol", { class: "transcript", tabindex: "0" }, ...detail.transcript.map((line) => el("li", {},
      el("span", { class: "meta", text: `round ${line.round} · ` }),
      el("span", { class: "speaker", text: `${line.speaker} (${line.kind}): ` }), line.text)))) : null;
  const traces = detail.traces.length ? el("details", {},
    el("summary", {}, `ASTRA's decision trace (${detail.traces.length} moves)`),
    ...detail.traces.map((t) => el("div", {}, el("h4", { text: `round ${t.round}, ${t.party}` }), el("pre", { class: "trace", text: t.text })))) : null;
  const ratings = detail.ratings.length ? el("details", {},
    el("summary", {}, `Ratings so far (${detail.ratings.length})`),
    el("ul", {}, ...detail.ratings.map((r) => el("li", {
      text: `${r.rated_by}, ${when(r.rated_at)}: ${Object.entries(r.scores).map(([k, v]) => `${k} ${v}`).join(", ")}${r.comment ? ` — “${r.comment}”` : ""}`,
    })))) : null;
  return [
    el("h3", { text: detail.run_id }),
    el("p", { class: "muted", text: `Kind: ${detail.kind}` }),
    facts, plots,
    detail.tournament ? tournamentView(detail.tournament) : null,
    transcript, traces, ratings,
    detail.rating_problems ? el("p", { class: "warning", text: `${detail.rating_problems} lines of this run's ratings file could not be read.` }) : null,
    detail.instrument ? el("div", { id: "run-rating" }) : null,
  ].filter(Boolean);
}

async function openRun(runId) {
  currentRun = runId;
  setQuery("run", runId);
  try {
    const detail = await api(`/api/runs/${runPath(runId)}`);
    $("run-body").replaceChildren(...detailView(detail));
    if (detail.instrument) await ratingForm($("run-rating"), { run: detail.run_id, kind: detail.kind });
    showRuns();
    $("run").focus();
  } catch (error) {
    say(`Could not open ${runId}: ${error.detail || error.message}`, true);
  }
}

async function start() {
  $("kind").addEventListener("change", showRuns);
  await loadRuns();
  const runId = query("run");
  if (runId) await openRun(runId);
}

startPage(start);

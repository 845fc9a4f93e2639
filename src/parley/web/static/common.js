// parley console: what every page shares. Plain DOM, no build step, no library.
// Every server string is inserted as text (textContent or text nodes), never as HTML: names, messages,
// offers and comments come from counterparties, agents and people. Writes carry the sign-in's CSRF
// token (X-CSRF-Token); the server also checks their Origin.
"use strict";

const $ = (id) => document.getElementById(id);
let csrfToken = "";
let principalName = "";

function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (key === "class") node.className = value;
    else if (key === "text") node.textContent = value;
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else node.setAttribute(key, value === true ? "" : String(value));
  }
  for (const child of children.flat()) {
    if (child !== null && child !== undefined && child !== false) {
      node.append(typeof child === "string" || typeof child === "number" ? document.createTextNode(String(child)) : child);
    }
  }
  return node;
}

class ApiError extends Error {
  constructor(status, detail) {
    super(`${status}: ${detail}`);
    this.status = status;
    this.detail = detail;
  }
}

function toLogin() {
  window.location.assign("/login");
}

async function api(path, body) {
  const init = body === undefined ? {} : {
    method: "POST",
    headers: { "Content-Type": "application/json", "X-CSRF-Token": csrfToken },
    body: JSON.stringify(body),
  };
  const response = await fetch(path, init);
  const data = await response.json().catch(() => ({ detail: response.statusText }));
  if (response.status === 401) toLogin();
  if (!response.ok) throw new ApiError(response.status, data.detail || response.statusText);
  return data;
}

function say(text, isError) {
  const status = $("status");
  status.textContent = text;
  status.classList.toggle("error", Boolean(isError));
}

function percent(value) {
  return `${Math.round(value * 100)}%`;
}

function num(value) {
  if (value === null || value === undefined) return "—";
  return String(Math.round(value * 100) / 100);
}

function show(value) {
  return Array.isArray(value) ? value.join(", ") : String(value);
}

function when(seconds) {
  return new Date(seconds * 1000).toLocaleString();
}

function query(name) {
  return new URLSearchParams(window.location.search).get(name);
}

function setQuery(name, value) {
  const url = new URL(window.location.href);
  if (value === null) url.searchParams.delete(name);
  else url.searchParams.set(name, value);
  window.history.replaceState(null, "", url.pathname + url.search);
}

// A run id is a folder path: each segment is encoded, the slashes kept.
function runPath(runId) {
  return runId.split("/").map(encodeURIComponent).join("/");
}

// Text with the glossary's terms marked: each becomes a focusable <dfn> whose title holds the
// definition (shown on hover and read by screen readers; keyboard users reach it with Tab).
function withTerms(text, glossary, terms) {
  const wanted = (terms || Object.keys(glossary || {})).filter((t) => glossary && glossary[t]);
  const fragment = document.createDocumentFragment();
  if (!wanted.length) { fragment.append(document.createTextNode(text)); return fragment; }
  const escaped = wanted.sort((a, b) => b.length - a.length).map((t) => t.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"));
  const pattern = new RegExp(`\\b(${escaped.join("|")})\\b`, "gi");
  let last = 0;
  for (const match of text.matchAll(pattern)) {
    fragment.append(document.createTextNode(text.slice(last, match.index)));
    const term = wanted.find((t) => t.toLowerCase() === match[0].toLowerCase());
    fragment.append(el("dfn", { tabindex: "0", title: glossary[term], class: "term", "data-term": term }, match[0]));
    last = match.index + match[0].length;
  }
  fragment.append(document.createTextNode(text.slice(last)));
  return fragment;
}

function glossaryList(glossary, terms) {
  const shown = (terms || Object.keys(glossary)).filter((t) => glossary[t]);
  if (!shown.length) return null;
  return el("details", { class: "glossary" }, el("summary", {}, "What these words mean"),
    el("dl", {}, ...shown.flatMap((t) => [el("dt", { text: t }), el("dd", { text: glossary[t] })])));
}

async function signIn() {
  const info = await api("/api/session-info");
  csrfToken = info.csrf_token;
  principalName = info.principal;
  $("principal").textContent = `Signed in as ${info.principal}`;
  return info;
}

async function signOut() {
  try {
    await api("/api/logout", {});
  } catch (error) {
    if (error.status !== 401) { say(`Could not sign out: ${error.message}`, true); return; }
  }
  toLogin();
}

// Start a page: sign in (redirecting to /login without a session), wire the sign-out button, run start.
function startPage(start) {
  document.addEventListener("DOMContentLoaded", () => {
    $("sign-out").addEventListener("click", signOut);
    for (const link of document.querySelectorAll("nav.pages a")) {
      if (link.getAttribute("href") === window.location.pathname) link.setAttribute("aria-current", "page");
    }
    signIn()
      .then(start)
      .catch((error) => say(`Could not reach the console API: ${error.message}`, true));
  });
}

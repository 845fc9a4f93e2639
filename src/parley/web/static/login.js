// parley console sign-in: send the principal's token; the server answers with an HttpOnly cookie.
"use strict";

document.addEventListener("DOMContentLoaded", () => {
  const status = document.getElementById("status");
  const token = document.getElementById("token");
  document.getElementById("login").addEventListener("submit", async (event) => {
    event.preventDefault();
    status.textContent = "Signing in…";
    status.classList.remove("error");
    const response = await fetch("/api/login", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ token: token.value }),
    }).catch((error) => ({ ok: false, status: 0, json: async () => ({ detail: error.message }) }));
    if (response.ok) {
      window.location.assign("/");
      return;
    }
    const data = await response.json().catch(() => ({}));
    status.textContent = `Not signed in: ${data.detail || `error ${response.status}`}`;
    status.classList.add("error");
    token.select();
  });
});

// The organiser's page: start a new game with each seat's deck (uploaded, pasted or shown to the front
// camera), a play style and the seats' token colours, no SSH. Needs the judge key the judge page keeps
// for this tab.
"use strict";
(function () {
  const K = window.Kipukas;
  const form = document.getElementById("new-game");
  const key = () => sessionStorage.getItem("kipukas-judge-key") || "";
  let polling = null;

  async function post(url, data) {
    data.append("k", key());
    const res = await fetch(url, { method: "POST", body: data });
    const out = await res.json().catch(() => ({ ok: false, error: `HTTP ${res.status}` }));
    if (res.status === 403) { K.notice("Open this page from the judge page (judge key needed).", "bad"); return null; }
    if (!out.ok) { K.notice(out.error, "bad"); return null; }
    return out;
  }

  function show(status) {
    for (const box of document.querySelectorAll(".registered")) {
      const seat = box.id.replace(/_registered$/, "");
      const deck = (status.decks || {})[seat];
      box.textContent = "";
      if (!deck) continue;
      const head = document.createElement("p");
      head.textContent = `${deck.count} card${deck.count === 1 ? "" : "s"} registered` +
        (status.registering === seat ? " (showing cards to the front camera now)" : "") +
        (deck.valid ? ": a legal deck" : deck.deck_problems.length ? `: ${deck.deck_problems[0]}` : "");
      box.append(head);
      const list = document.createElement("ol");
      for (const name of deck.cards) {
        const li = document.createElement("li");
        li.textContent = name;
        list.append(li);
      }
      box.append(list);
    }
    for (const problem of status.problems || []) K.notice(problem, "warn");
    const stop = document.getElementById("register-stop");
    if (stop) stop.classList.toggle("hidden", !status.registering);
  }

  async function poll() {
    const data = new FormData();
    data.append("action", "status");
    const out = await post("/organise/register", data);
    if (out) show(out);
    if (!out || !out.registering) { clearInterval(polling); polling = null; }
  }

  for (const button of document.querySelectorAll("button.register")) {
    button.addEventListener("click", async () => {
      const data = new FormData();
      data.append("action", "start");
      data.append("seat", button.dataset.seat);
      const out = await post("/organise/register", data);
      if (!out) return;
      show(out);
      K.notice(`Show ${button.dataset.seat}'s cards to the front camera, one at a time.`, "ok");
      if (!polling) polling = setInterval(poll, 1000);
    });
  }
  const stop = document.getElementById("register-stop");
  if (stop) stop.addEventListener("click", async () => {
    const data = new FormData();
    data.append("action", "stop");
    const out = await post("/organise/register", data);
    if (out) show(out);
  });

  form.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const out = await post("/organise/new", new FormData(form));
    if (out) K.notice(`New game started (${out.record}, ${out.style}): the pages switch to it.`, "ok");
  });
})();

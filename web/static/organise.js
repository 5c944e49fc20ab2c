// The organiser's page: start a new game with each seat's deck, no SSH. Needs the judge key the judge
// page keeps for this tab.
"use strict";
(function () {
  const K = window.Kipukas;
  const form = document.getElementById("new-game");
  form.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const data = new FormData(form);
    data.append("k", sessionStorage.getItem("kipukas-judge-key") || "");
    const res = await fetch("/organise/new", { method: "POST", body: data });
    const out = await res.json().catch(() => ({ ok: false, error: `HTTP ${res.status}` }));
    if (res.status === 403) K.notice("Open this page from the judge page (judge key needed).", "bad");
    else if (!out.ok) K.notice(out.error, "bad");
    else K.notice(`New game started (${out.record}): the pages switch to it.`, "ok");
  });
})();

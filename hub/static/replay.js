// Organiser's replay of one game from the rows the hub holds: step or scrub row by row; the row, the
// board the overhead camera last reported, the record so far, and the signed heads the hub witnessed.
"use strict";
(function () {
  const table = document.body.dataset.table, game = document.body.dataset.game;
  const key = new URLSearchParams(location.search).get("k") || "";
  const base = "/organiser/tables/" + encodeURIComponent(table) + "/games/" + encodeURIComponent(game);
  const $ = (id) => document.getElementById(id);
  let rows = [];
  let at = 0;
  function describe(r) {
    const b = r.body || {};
    if (r.kind === "action") return (b.accepted === false ? "refused: " : "") + (b.text || "");
    if (r.kind === "board") return "board seen: " + Object.keys(b.observed || {}).length + " stands";
    return r.kind + " " + JSON.stringify(b);
  }
  function show() {
    const r = rows[at];
    $("scrub").value = String(at + 1);
    $("where").textContent = "row " + r.seq + " of " + rows[rows.length - 1].seq;
    $("row").textContent = JSON.stringify(r, null, 2);
    let board = {};
    for (let i = 0; i <= at; i++) if (rows[i].kind === "board") board = rows[i].body.observed || {};
    $("board").textContent = Object.keys(board).sort().map((s) => s + ": " + board[s]).join("\n") || "(none yet)";
    const log = $("log");
    log.replaceChildren();
    for (let i = at; i >= Math.max(0, at - 30); i--) {
      const li = document.createElement("li");
      li.value = rows[i].seq;
      li.textContent = new Date(rows[i].ts * 1000).toLocaleTimeString() + " " + rows[i].source + ": " + describe(rows[i]);
      log.appendChild(li);
    }
  }
  function go(n) { if (rows.length) { at = Math.max(0, Math.min(rows.length - 1, n)); show(); } }
  $("first").addEventListener("click", () => go(0));
  $("prev").addEventListener("click", () => go(at - 1));
  $("next").addEventListener("click", () => go(at + 1));
  $("last").addEventListener("click", () => go(rows.length - 1));
  $("scrub").addEventListener("input", () => go(Number($("scrub").value) - 1));
  document.addEventListener("keydown", (e) => {
    if (e.key === "ArrowLeft") go(at - 1);
    if (e.key === "ArrowRight") go(at + 1);
  });
  $("download").href = base + ".jsonl?k=" + encodeURIComponent(key);
  fetch(base + ".jsonl?k=" + encodeURIComponent(key)).then((r) => r.text()).then((text) => {
    rows = text.split("\n").filter((l) => l.trim()).map((l) => JSON.parse(l));
    $("scrub").max = String(rows.length);
    go(rows.length - 1);
  });
  fetch(base + "/heads.json?k=" + encodeURIComponent(key)).then((r) => r.json()).then((heads) => {
    const last = heads[heads.length - 1];
    $("heads").textContent = heads.length ? heads.length + " signed heads witnessed, the last at row " + last.seq
      : "no signed head witnessed yet";
  });
})();

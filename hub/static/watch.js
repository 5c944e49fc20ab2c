// Spectator page: one table's public, delayed rows from the hub.
"use strict";
(function () {
  const table = document.body.dataset.table;
  const list = document.getElementById("rows");
  const status = document.getElementById("status");
  const socket = io("/watch", { auth: { table: table } });
  function describe(r) {
    const b = r.body || {};
    if (r.kind === "action") return (b.accepted === false ? "refused: " : "") + (b.text || "");
    if (r.kind === "board") return "board seen: " + Object.keys(b.observed || {}).length + " stands";
    if (r.kind === "start") return "game starts: " + (b.players || []).join(" v ");
    return r.kind;
  }
  socket.on("connect", function () { status.textContent = "connected"; });
  socket.on("disconnect", function () { status.textContent = "reconnecting…"; });
  socket.on("status", function (s) {
    status.textContent = "phase " + (s.phase || "?") + ", turn " + (s.turn ?? "?") +
      (s.active ? ", " + s.active + " to play" : "") + (s.result ? ", result: " + JSON.stringify(s.result) : "");
  });
  // A reconnection gets the last rows again: each row is shown once (by game and seq).
  const seen = {};
  socket.on("rows", function (rows) {
    for (const r of rows) {
      if ((seen[r.game] || 0) >= r.seq) continue;
      seen[r.game] = r.seq;
      const li = document.createElement("li");
      li.value = r.seq;
      li.textContent = new Date(r.ts * 1000).toLocaleTimeString() + " " + describe(r);
      list.insertBefore(li, list.firstChild);
    }
    while (list.children.length > 200) list.removeChild(list.lastChild);
  });
})();

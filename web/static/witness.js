// Every page is a witness of the record: it keeps the latest signed head it saw (per game, in this
// browser's localStorage), shows the table key's fingerprint, and offers the head as a file, so a judge
// can later prove with `kipukas-tracker log verify --witness FILE` that the record was not cut back.
"use strict";
window.KipukasWitness = (function () {
  const PREFIX = "kipukas-signed-head:";

  function stored(game) {
    try { return JSON.parse(localStorage.getItem(PREFIX + game) || "null"); } catch (e) { return null; }
  }

  function keep(head) {
    const old = stored(head.game);
    if (old && old.seq >= head.seq) return old;
    try { localStorage.setItem(PREFIX + head.game, JSON.stringify(head)); } catch (e) { /* storage full: still shown */ }
    return head;
  }

  function show(box, state, head) {
    box.textContent = "";
    const key = document.createElement("span");
    key.className = "table-key";
    key.textContent = `Table key ${state.table_key || "(unsigned record)"}`;
    box.append(key);
    if (!head) return;
    const link = document.createElement("a");
    link.className = "head-download";
    link.textContent = `signed head: row ${head.seq}`;
    link.download = `signed-head-${head.game.slice(0, 12)}-${head.seq}.json`;
    link.href = URL.createObjectURL(new Blob([JSON.stringify(head, null, 1)], { type: "application/json" }));
    box.append(" · ", link);
  }

  function update(state) {
    const head = state.signed_head ? keep(state.signed_head) : null;
    const box = document.getElementById("witness");
    if (box) show(box, state, head);
  }

  return { update, stored };
})();

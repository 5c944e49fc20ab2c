// Organiser and judge page: every table at a glance, judge calls, pairings, results and standings.
"use strict";
(function () {
  const $ = (id) => document.getElementById(id);
  let socket = null, key = "", role = "";
  function cell(tr, text, cls) { const td = document.createElement("td"); td.textContent = text; if (cls) td.className = cls; tr.appendChild(td); return td; }
  function ago(t, now) { if (!t) return "never"; const s = Math.max(0, Math.round(now - t)); return s < 90 ? s + " s ago" : Math.round(s / 60) + " min ago"; }
  function render(o) {
    const body = $("tables").querySelector("tbody"); body.textContent = "";
    const calls = $("calls"); calls.textContent = "";
    for (const t of o.tables) {
      const tr = document.createElement("tr");
      tr.id = "table-" + t.table;
      if (t.judge_called) tr.classList.add("called");
      if (!t.online) tr.classList.add("offline");
      cell(tr, t.table); cell(tr, t.online ? "yes" : "no");
      cell(tr, (t.players || []).join(" v ")); cell(tr, t.phase || ""); cell(tr, t.turn ?? "");
      cell(tr, t.active || ""); cell(tr, t.in_sync === false ? "OUT OF SYNC" : (t.in_sync ? "ok" : ""), t.in_sync === false ? "warn" : "");
      cell(tr, [...(t.warnings || []), ...(t.alarm ? [t.alarm] : [])].join("; "), "warn");
      cell(tr, ago(t.last_activity, o.now));
      const td = cell(tr, "");
      for (const g of (t.games || [])) {
        const a = document.createElement("a"); a.textContent = g + " ";
        a.href = "/organiser/tables/" + encodeURIComponent(t.table) + "/games/" + encodeURIComponent(g) + ".jsonl?k=" + key;
        td.appendChild(a);
        const r = document.createElement("a"); r.textContent = "(replay) "; r.className = "replay";
        r.href = "/organiser/tables/" + encodeURIComponent(t.table) + "/games/" + encodeURIComponent(g) + "/replay?k=" + key;
        td.appendChild(r);
      }
      body.appendChild(tr);
      if (t.judge_called) {
        const d = document.createElement("div"); d.className = "call"; d.id = "call-" + t.table;
        d.textContent = "Judge called at table " + t.table;
        const b = document.createElement("button"); b.textContent = "on my way";
        b.addEventListener("click", function () { socket.emit("clear_call", { table: t.table }); d.remove(); });
        d.appendChild(b); calls.appendChild(d);
      }
    }
    const pb = $("pairings").querySelector("tbody"); pb.textContent = "";
    for (const p of o.pairings) {
      const tr = document.createElement("tr");
      cell(tr, p.round); cell(tr, p.table); cell(tr, p.red); cell(tr, p.blue);
      const td = cell(tr, role === "organiser" ? "" : p.result);
      if (role === "organiser") {
        const s = document.createElement("select");
        for (const v of ["", "red", "blue", "draw"]) { const op = document.createElement("option"); op.value = v; op.textContent = v || "—"; op.selected = v === p.result; s.appendChild(op); }
        s.addEventListener("change", function () { socket.emit("result", { round: p.round, table: p.table, result: s.value }); });
        td.appendChild(s);
      }
      pb.appendChild(tr);
    }
    const sel = $("round"), chosen = sel.value;
    sel.textContent = "";
    for (const r of ["", ...o.rounds.map(String)]) {
      const op = document.createElement("option"); op.value = r; op.textContent = r ? "after round " + r : "all rounds";
      op.selected = r === chosen; sel.appendChild(op);
    }
    const rows = sel.value ? (o.standings_by_round[sel.value] || []) : o.standings;
    const sb = $("standings").querySelector("tbody"); sb.textContent = "";
    for (const s of rows) { const tr = document.createElement("tr"); cell(tr, s.player); cell(tr, s.points); cell(tr, s.played); sb.appendChild(tr); }
  }
  function refresh() { if (socket && socket.connected) socket.emit("overview", null, render); }
  $("login").addEventListener("submit", function (ev) {
    ev.preventDefault();
    if (socket) socket.close();
    socket = io("/organiser", { auth: { pin: $("pin").value } });
    socket.on("connect_error", function (e) { $("login-error").textContent = e.message; });
    socket.on("welcome", function (w) {
      key = w.key; role = w.role;
      $("who").textContent = "Signed in as " + role; $("login").hidden = true; $("main").hidden = false;
      $("export").href = "/organiser/pairings.csv?k=" + key;
      $("import-box").hidden = role !== "organiser";
    });
    socket.on("overview", render);
    socket.on("judge_call", refresh);
  });
  $("import").addEventListener("change", function () {
    const f = $("import").files[0]; if (!f) return;
    f.text().then((text) => fetch("/organiser/pairings.csv?k=" + key, { method: "POST", body: text, headers: { "Content-Type": "text/csv" } }))
      .then((r) => r.json()).then((j) => { $("import-msg").textContent = j.error || ("imported " + j.imported); refresh(); });
  });
  $("round").addEventListener("change", refresh);
  setInterval(refresh, 2000);
})();

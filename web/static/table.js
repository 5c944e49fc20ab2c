// Kipukas table page: draws the record's board over the map picture and lists the game record.
"use strict";
(function () {
  const SVG = "http://www.w3.org/2000/svg";
  const COLOURS = { red: "#d22", blue: "#1e5ad2", green: "#1a8f3c", yellow: "#e0b000", black: "#222", white: "#eee" };
  const overlay = document.getElementById("overlay");
  const logEl = document.getElementById("log");
  const syncEl = document.getElementById("sync");
  const connEl = document.getElementById("conn");
  const legendEl = document.getElementById("legend");
  let mapKey = null;

  function el(name, attrs, parent) {
    const node = document.createElementNS(SVG, name);
    for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
    if (parent) parent.appendChild(node);
    return node;
  }
  const colour = (owner) => COLOURS[owner] || "#888";

  function drawMap(map) {
    const [w, h] = map.size_mm;
    const [x0, y0, x1, y1] = map.board_px;
    const sx = w / (x1 - x0), sy = h / (y1 - y0);
    overlay.setAttribute("viewBox", `0 0 ${w} ${h}`);
    overlay.innerHTML = "";
    const img = el("image", { href: overlay.dataset.mapUrl, x: -x0 * sx, y: -y0 * sy,
                              preserveAspectRatio: "none" }, overlay);
    const probe = new Image();
    probe.onload = () => { img.setAttribute("width", probe.naturalWidth * sx);
                           img.setAttribute("height", probe.naturalHeight * sy); };
    probe.src = overlay.dataset.mapUrl;
    el("g", { id: "tokens" }, overlay);
  }

  function drawTokens(state) {
    const g = document.getElementById("tokens");
    g.innerHTML = "";
    const pos = Object.fromEntries(state.map.stands.map((s) => [s.id, s]));
    const put = (id, v, ghost) => {
      const s = pos[id];
      if (!s) return;
      const grp = el("g", { class: `token ${v.kind} ${ghost ? "ghost" : ""}`, "data-stand": id,
                            "data-owner": v.owner || "" }, g);
      const fill = colour(v.owner);
      const style = ghost ? { fill: "none", stroke: "#b3261e", "stroke-width": 1.2, "stroke-dasharray": "2 1.2" }
                          : { fill, stroke: "#fff", "stroke-width": 0.8 };
      if (v.kind === "soul") {
        el("circle", { cx: s.x, cy: s.y, r: 5.5, ...style }, grp);
        if (!ghost && v.count > 1) {
          const t = el("text", { x: s.x, y: s.y + 2, "text-anchor": "middle", "font-size": 6, fill: "#fff" }, grp);
          t.textContent = v.count;
        }
      } else {
        el("rect", { x: s.x - 7, y: s.y - 7, width: 14, height: 14, rx: 1.5, ...style }, grp);
        if (!ghost && v.kind === "capital") {
          const t = el("text", { x: s.x, y: s.y + 2.5, "text-anchor": "middle", "font-size": 7, fill: "#fff",
                                 "font-weight": "bold" }, grp);
          t.textContent = "C";
        }
      }
      const title = el("title", {}, grp);
      title.textContent = `${id}: ${v.owner || ""} ${v.kind}${ghost ? " (seen on the board, not in the record)" : ""}`;
    };
    for (const [id, v] of Object.entries(state.stands)) put(id, v, false);
    if (!state.in_sync) {
      for (const [id, v] of Object.entries(state.observed)) {
        const want = state.stands[id];
        if (!want || want.kind !== v.kind || want.owner !== v.owner || want.count !== v.count) put(id, v, true);
      }
    }
  }

  function drawLog(state) {
    logEl.innerHTML = "";
    for (const e of [...state.log].reverse()) {
      const li = document.createElement("li");
      li.className = e.kind === "question" ? "question" : (e.accepted ? "accepted" : "rejected");
      li.dataset.seq = e.seq;
      const act = document.createElement("span");
      act.className = "act";
      act.textContent = e.action;
      const verdict = document.createElement("span");
      verdict.className = "verdict";
      verdict.textContent = e.kind === "question" ? "question" : e.kind === "undo" ? "undone by judge"
        : e.kind === "correct" ? "judge correction" : e.accepted ? "accepted" : `rejected ${e.rule}`;
      const msg = document.createElement("span");
      msg.className = "msg";
      msg.textContent = e.message;
      li.append(act, verdict, msg);
      logEl.appendChild(li);
    }
  }

  function drawLegend(state) {
    legendEl.innerHTML = "";
    for (const card of state.cards) {
      const li = document.createElement("li");
      li.innerHTML = `<span style="color:${colour(card.owner)}">●</span> `;
      li.append(card.revealed ? `${card.title} (${card.id}) on ${card.at}` + (card.movement != null ? `, movement ${card.movement}` : "")
                              : `a face-down card on ${card.at}`);
      legendEl.appendChild(li);
    }
  }

  function drawStatus(state) {
    const phase = document.getElementById("phase");
    phase.textContent = state.result ? `Game over: ${state.result}`
      : `${state.phase}${state.turn ? `, turn ${state.turn}` : ""}${state.active ? ` · ${state.active} to act` : ""}`;
    const list = document.getElementById("prompts");
    list.innerHTML = "";
    for (const p of [...state.prompts, ...state.questions.map((q) => ({ player: q.player, text: `${q.text} ${q.options.join(" / ")}` }))]) {
      const li = document.createElement("li");
      li.dataset.player = p.player || "";
      li.textContent = `${p.player ? p.player + ": " : ""}${p.text}`;
      list.appendChild(li);
    }
  }

  function render(state) {
    const key = JSON.stringify(state.map.board_px) + state.map.name;
    if (key !== mapKey) { drawMap(state.map); mapKey = key; }
    drawTokens(state);
    drawLog(state);
    drawLegend(state);
    drawStatus(state);
    if (state.in_sync) {
      syncEl.className = "banner hidden";
      syncEl.textContent = "";
    } else {
      syncEl.className = "banner out";
      syncEl.textContent = "Board out of sync with the record: " + state.differences.join("; ");
    }
    document.body.dataset.version = state.version;
  }

  const socket = io("/table", { transports: ["websocket", "polling"] });
  socket.on("connect", () => { connEl.textContent = "live"; connEl.className = "conn on"; });
  socket.on("disconnect", () => { connEl.textContent = "reconnecting…"; connEl.className = "conn off"; });
  socket.on("state", render);
})();

// Shared by the table (player/spectator) and judge pages: the connection, the record kept by row
// number across reconnections, and the board drawn over the map picture.
"use strict";
window.Kipukas = (function () {
  const SVG = "http://www.w3.org/2000/svg";
  const COLOURS = { red: "#d22", blue: "#1e5ad2", green: "#1a8f3c", yellow: "#e0b000", black: "#222", white: "#eee" };
  const colour = (owner) => COLOURS[owner] || "#888";

  function svg(name, attrs, parent) {
    const node = document.createElementNS(SVG, name);
    for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
    if (parent) parent.appendChild(node);
    return node;
  }

  function html(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (k === "class") node.className = v;
      else if (k.startsWith("data-")) node.setAttribute(k, v);
      else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
      else node[k] = v;
    }
    for (const c of children) if (c !== null && c !== undefined) node.append(c);
    return node;
  }

  // --- the map ----------------------------------------------------------------------------------------------
  // `camera`: draw what the overhead camera last reported (state.observed) instead of what the record
  // implies; a stand where the two differ gets a dashed ring, so the views side by side say where.
  function Board(overlay, camera) {
    let mapKey = null;
    function drawMap(map) {
      const [w, h] = map.size_mm;
      const [x0, y0, x1, y1] = map.board_px;
      const sx = w / (x1 - x0), sy = h / (y1 - y0);
      overlay.setAttribute("viewBox", `0 0 ${w} ${h}`);
      overlay.innerHTML = "";
      const img = svg("image", { href: overlay.dataset.mapUrl, x: -x0 * sx, y: -y0 * sy, preserveAspectRatio: "none" },
                      overlay);
      const probe = new Image();
      probe.onload = () => { img.setAttribute("width", probe.naturalWidth * sx);
                             img.setAttribute("height", probe.naturalHeight * sy); };
      probe.src = overlay.dataset.mapUrl;
      svg("g", { id: "claims" }, overlay);
      svg("g", { id: "tokens" }, overlay);
    }
    function drawClaims(state) {
      const g = overlay.querySelector("#claims");
      g.innerHTML = "";
      for (const s of state.map.stands) {
        if (s.kind === "movement") continue;
        const claim = state.claims[s.territory];
        if (!claim) continue;
        const ring = svg("circle", { cx: s.x, cy: s.y, r: 11, fill: "none", stroke: colour(claim.owner),
                                     "stroke-width": 2, class: "claim", "data-territory": s.territory,
                                     "data-owner": claim.owner }, g);
        svg("title", {}, ring).textContent = `territory ${s.territory}: ${claim.owner} ${claim.kind}`;
      }
    }
    function drawTokens(state) {
      const g = overlay.querySelector("#tokens");
      g.innerHTML = "";
      const pos = Object.fromEntries(state.map.stands.map((s) => [s.id, s]));
      const put = (id, v, ghost) => {
        const s = pos[id];
        if (!s) return;
        const grp = svg("g", { class: `token ${v.kind} ${ghost ? "ghost" : ""}`, "data-stand": id,
                               "data-owner": v.owner || "" }, g);
        const style = ghost ? { fill: "none", stroke: "#b3261e", "stroke-width": 1.2, "stroke-dasharray": "2 1.2" }
                            : { fill: colour(v.owner), stroke: "#fff", "stroke-width": 0.8 };
        if (v.kind === "soul") {
          svg("circle", { cx: s.x, cy: s.y, r: 5.5, ...style }, grp);
          if (!ghost && v.count > 1) {
            svg("text", { x: s.x, y: s.y + 2, "text-anchor": "middle", "font-size": 6, fill: "#fff" }, grp)
              .textContent = v.count;
          }
        } else {
          svg("rect", { x: s.x - 7, y: s.y - 7, width: 14, height: 14, rx: 1.5, ...style }, grp);
          if (!ghost && v.kind === "capital") {
            svg("text", { x: s.x, y: s.y + 2.5, "text-anchor": "middle", "font-size": 7, fill: "#fff",
                          "font-weight": "bold" }, grp).textContent = "C";
          }
        }
        svg("title", {}, grp).textContent =
          `${id}: ${v.owner || ""} ${v.kind}${ghost ? " (seen on the board, not in the record)" : ""}`;
      };
      if (camera) {
        for (const [id, v] of Object.entries(state.observed || {})) put(id, v, false);
        const ids = new Set([...Object.keys(state.observed || {}), ...Object.keys(state.stands)]);
        for (const id of ids) {
          const a = (state.observed || {})[id], b = state.stands[id];
          const same = (a && b && a.kind === b.kind && a.owner === b.owner && a.count === b.count) ||
                       (!b && (!a || a.kind === "empty"));
          if (same || !pos[id] || !Object.keys(state.observed || {}).length) continue;
          const ring = svg("circle", { cx: pos[id].x, cy: pos[id].y, r: 10, fill: "none", stroke: "#b3261e",
                                       "stroke-width": 1.4, "stroke-dasharray": "2.5 1.5", class: "differs",
                                       "data-stand": id }, g);
          svg("title", {}, ring).textContent = `${id}: the camera and the record differ here`;
        }
        return;
      }
      for (const [id, v] of Object.entries(state.stands)) put(id, v, false);
      if (!state.in_sync) {
        for (const [id, v] of Object.entries(state.observed)) {
          const want = state.stands[id];
          if (!want || want.kind !== v.kind || want.owner !== v.owner || want.count !== v.count) put(id, v, true);
        }
      }
    }
    return function draw(state) {
      const key = JSON.stringify(state.map.board_px) + state.map.name;
      if (key !== mapKey) { drawMap(state.map); mapKey = key; }
      drawClaims(state);
      drawTokens(state);
    };
  }

  // --- the camera's view beside the record's ---------------------------------------------------------------
  // A toggle (#camera-toggle) shows a second board (#camera-board) drawn from what the overhead camera last
  // reported; returns the function to call with each new state.
  function CameraView() {
    const button = document.getElementById("camera-toggle");
    const figure = document.getElementById("camera-board");
    const caption = document.getElementById("camera-caption");
    if (!button || !figure) return () => {};
    const draw = Board(document.getElementById("overlay-camera"), true);
    let last = null;
    const on = () => button.getAttribute("aria-pressed") === "true";
    function render(state) {
      last = state;
      if (!on()) return;
      draw(state);
      const n = (state.differences || []).length;
      caption.textContent = !state.camera_seen ? "The overhead camera has not reported the board yet."
        : state.in_sync ? "What the overhead camera sees: the same as the record."
        : `What the overhead camera sees: ${n} difference${n === 1 ? "" : "s"} from the record (dashed rings).`;
    }
    button.addEventListener("click", () => {
      button.setAttribute("aria-pressed", on() ? "false" : "true");
      button.textContent = on() ? "Hide the camera's view" : "Show the camera's view";
      figure.classList.toggle("hidden", !on());
      figure.parentElement.classList.toggle("split", on());
      if (on() && last) render(last);
    });
    return render;
  }

  // --- the record, kept by row number -----------------------------------------------------------------------
  function Record() {
    const rows = new Map();
    return {
      merge(entries) { for (const e of entries) rows.set(e.seq, e); },
      lastSeq() { let m = 0; for (const k of rows.keys()) if (k > m) m = k; return m; },
      newestFirst(limit) { return [...rows.values()].sort((a, b) => b.seq - a.seq).slice(0, limit || 300); },
      size() { return rows.size; },
    };
  }

  function entryItem(e) {
    const cls = e.kind === "question" ? "question" : e.kind === "board" ? "board" : (e.accepted ? "accepted" : "rejected");
    const verdict = e.kind === "question" ? "question" : e.kind === "board" ? "camera" : e.kind === "undo" ? "undone by judge"
      : e.kind === "correct" ? "judge correction" : e.accepted ? "accepted" : `rejected ${e.rule}`;
    return html("li", { class: cls, "data-seq": e.seq },
      html("span", { class: "seq" }, `#${e.seq}`), " ",
      html("span", { class: "act" }, e.label || e.action),
      html("span", { class: "verdict" }, verdict),
      html("span", { class: "msg" }, e.message));
  }

  function statusText(state) {
    if (state.result) return `Game over: ${state.result}`;
    const parts = [state.phase];
    if (state.turn) parts.push(`diel cycle ${state.turn}`);
    let text = parts.join(", ");
    if (state.active) text += ` · ${state.active} to act`;
    if (state.initiative) text += ` · initiative: ${state.initiative}`;
    return text;
  }

  // The overhead camera's last word on the board: "board unreadable: <why>" until "board readable again".
  function unreadable(state) {
    const said = (state.warnings || []).filter((w) => w.startsWith("board unreadable") || w === "board readable again");
    const last = said[said.length - 1];
    return last && last !== "board readable again" ? last.slice("board unreadable: ".length) : null;
  }

  function syncBanner(el, state) {
    const why = unreadable(state);
    if (why) {
      el.className = "banner out";
      el.textContent = `Board unreadable: ${why}. No move is recorded until the camera reads it again.`;
      return;
    }
    if (state.in_sync) { el.className = "banner hidden"; el.textContent = ""; return; }
    el.className = "banner out";
    const help = state.sync_help || [];
    if (!help.length) { el.textContent = "Board out of sync with the record: " + state.differences.join("; "); return; }
    el.replaceChildren(html("p", { class: "banner-title" }, "Board out of sync with the record"),
      ...help.map((h) => html("p", { "data-stand": h.stand },
        html("b", {}, `${h.stand}: `), `the camera sees ${h.seen}, the record expects ${h.expected}. `,
        h.rule ? html("span", { class: "rule" }, `${h.rule} `) : "", `${h.reason}. `,
        html("b", {}, `What to do: ${h.todo}.`))));
  }

  // --- the connection ---------------------------------------------------------------------------------------
  // `credentials` are sent on every (re)connection with `since`: the last record row this page holds.
  function connect(credentials, handlers) {
    const record = Record();
    const conn = document.getElementById("conn");
    const socket = io("/table", {
      transports: ["websocket", "polling"],
      auth: (cb) => cb({ ...credentials, deltas: true, ...(record.size() ? { since: record.lastSeq() } : {}) }),
    });
    socket.on("connect", () => { conn.textContent = "live"; conn.className = "conn on"; });
    socket.on("disconnect", () => { conn.textContent = "reconnecting…"; conn.className = "conn off"; });
    socket.on("connect_error", (err) => {
      conn.textContent = "refused"; conn.className = "conn off";
      if (handlers.refused) handlers.refused(err.message);
    });
    socket.on("hello", (h) => handlers.hello && handlers.hello(h));
    // Later states come as deltas from the previous one (docs/web.md, `broadcast.deltas`): applied only
    // to the state they name as their base; one that came before its base waits for it, and one that
    // cannot apply asks for the whole state again by reconnecting.
    let last = null;
    let waiting = null;
    const same = (a, b) => a[0] === b[0] && a[1] === b[1];
    const ident = (s) => [s.version, s.seq];
    function show(state) {
      last = state;
      record.merge(state.log);
      if (window.KipukasWitness) window.KipukasWitness.update(state);
      handlers.state(state, record);
    }
    function applyDelta(d) {
      const next = { ...last };
      for (const k of d.unset) delete next[k];
      Object.assign(next, d.set);
      for (const [k, m] of Object.entries(d.lists || {})) next[k] = last[k].slice(m.drop).concat(m.append);
      show(next);
    }
    socket.on("state", (state) => {
      show(state);
      if (waiting && same(waiting.base, ident(state))) applyDelta(waiting);
      waiting = null;
    });
    socket.on("delta", (d) => {
      if (!last) { waiting = d; return; }
      if (same(d.to, ident(last))) return;
      if (!same(d.base, ident(last))) { socket.disconnect(); socket.connect(); return; }
      applyDelta(d);
    });
    socket.on("log", (msg) => { record.merge(msg.entries); if (handlers.log) handlers.log(record); });
    // "rejected" and "error" events repeat what the acknowledgement of our own request says: the pages
    // show the acknowledgement (see `send`), so they are not shown twice.
    const send = (event, data) => new Promise((resolve) => socket.emit(event, data, resolve));
    return { socket, record, send };
  }

  // A message in the page's #notice bar that goes away after 8 s (a newer one replaces it).
  let noticeTimer = null;
  function notice(text, kind) {
    const el = document.getElementById("notice");
    el.textContent = text;
    el.className = `notice ${kind || ""}`;
    clearTimeout(noticeTimer);
    noticeTimer = setTimeout(() => { el.className = "notice hidden"; }, 8000);
  }

  // Install to the home screen and keep the pages' shells for when the Wi-Fi drops (static/sw.js).
  if ("serviceWorker" in navigator && location.protocol !== "file:") {
    navigator.serviceWorker.register("/sw.js").catch(() => undefined);
  }

  return { svg, html, colour, Board, CameraView, Record, entryItem, statusText, syncBanner, connect, notice };
})();

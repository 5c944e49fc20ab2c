// The page of any game other than Kipukas (tracker.service.game_service): a player's phone, a spectator's
// view, the judge's page or the replay, all from the game interface's per-viewer state. Buttons come
// from the rules' legal actions (`actions`: grouped by seat and verb, labelled with the notation's
// words); the table is drawn from the game's `view` (hidden information already removed by the Pi).
"use strict";
(function () {
  const K = window.Kipukas;
  const $ = (id) => document.getElementById(id);
  const role = document.body.dataset.role;
  const notice = K.notice;
  let conn = null, key = null;

  const token = new URLSearchParams(location.search).get("t") || (role === "player" ? sessionStorage.getItem("kipukas-seat-token") : null);
  if (token && role === "player") {
    sessionStorage.setItem("kipukas-seat-token", token);
    history.replaceState(null, "", location.pathname);
  }

  function report(ack, what) {
    if (!ack.ok) notice(`${what}: ${ack.error}`, "bad");
    else if (ack.entry && ack.entry.accepted === false) notice(`Rejected ${ack.entry.rule}: ${ack.entry.message}`, "bad");
    else notice(`Recorded as row ${ack.entry.seq}: ${ack.entry.label || ack.entry.action}`, "ok");
    return ack;
  }
  async function act(text) {
    const ack = report(await conn.send("act", { text }), "Action");
    if (ack.ok && ack.entry.accepted) $("action").value = "";
    return ack;
  }

  // --- the game's view, drawn without knowing the game -----------------------------------------------------
  function value(v) {
    if (v === null || v === undefined) return "–";
    if (Array.isArray(v)) return v.length ? v.map(value).join(", ") : "none";
    if (typeof v === "object") {
      const parts = Object.entries(v).map(([k, x]) => (x !== null && typeof x === "object" ? `${k} (${value(x)})` : `${k.replaceAll("_", " ")} ${value(x)}`));
      return parts.join("; ") || "none";
    }
    return String(v);
  }
  function table(obj, attrs) {
    const dl = K.html("dl", { class: "kv", ...(attrs || {}) });
    for (const [k, v] of Object.entries(obj)) dl.append(K.html("dt", {}, k.replaceAll("_", " ")), K.html("dd", { "data-key": k }, value(v)));
    return dl;
  }
  function drawView(state) {
    const view = state.view || {};
    const box = $("view");
    box.replaceChildren();
    const skip = new Set(["players", "game", "grid", "board", "result"]);
    box.append(table(Object.fromEntries(Object.entries(view).filter(([k]) => !skip.has(k)))));
    for (const [seat, info] of Object.entries(view.players || {})) {
      const mine = seat === state.seat;
      box.append(K.html("h3", { style: `color:${K.colour(seat)}` }, mine ? `${seat} (you)` : seat),
                 table(info, { "data-seat": seat }));
    }
    drawGrid(view);
  }
  // A game whose view carries a `grid` (width, height, tile kinds) and a `board` of pieces on tiles.
  function drawGrid(view) {
    const grid = $("grid");
    if (!view.grid) { grid.className = "tile-grid hidden"; return; }
    const { width, height, tiles } = view.grid;
    grid.className = "tile-grid";
    grid.style.gridTemplateColumns = `repeat(${width}, 1fr)`;
    grid.replaceChildren();
    const at = Object.fromEntries((view.board || []).map((p) => [p.tile, p]));
    for (let y = height; y >= 1; y--) {
      for (let x = 0; x < width; x++) {
        const name = String.fromCharCode(97 + x) + y;
        const piece = at[name];
        const cell = K.html("div", { class: `tile ${tiles[name] || "plain"}`, "data-tile": name, title: name },
          piece ? K.html("span", { class: "piece", style: `background:${K.colour(piece.controller)}` }, piece.card) : name);
        grid.append(cell);
      }
    }
  }

  // --- the buttons -------------------------------------------------------------------------------------------
  function drawActions(state) {
    const box = $("actions");
    box.replaceChildren();
    const groups = state.actions || [];
    if (!groups.length) box.append(K.html("p", { class: "idle" }, state.result ? "The game is over." : "Nothing to do now: wait for the others."));
    for (const g of groups) {
      const title = role === "judge" ? `${g.seat} ${g.verb}` : g.verb;
      const row = K.html("div", { class: "controls", "data-verb": g.verb, "data-seat": g.seat }, K.html("b", {}, `${title}: `));
      for (const o of g.options) {
        row.append(K.html("button", { type: "button", class: "answer", "data-line": o.text, onclick: () => act(o.text) }, o.label));
      }
      box.append(row);
    }
    for (const q of state.questions || []) {  // what the overhead camera cannot settle alone
      const row = K.html("div", { class: "controls question", "data-question": q.text }, K.html("b", {}, `${q.text} `));
      for (const line of q.options) row.append(K.html("button", { type: "button", class: "answer", "data-line": line, onclick: () => act(line) }, line.split(" ").slice(1).join(" ")));
      box.prepend(row);
    }
    const mine = $("my-prompts");
    mine.replaceChildren();
    for (const p of state.prompts.filter((p) => p.player && (p.player === state.seat || role === "judge"))) {
      mine.append(K.html("li", { "data-rule": p.rule }, K.html("span", { class: "rule" }, p.rule), ` ${p.player}: ${p.text}`));
    }
  }

  function drawLog(record) {
    const log = $("log");
    log.replaceChildren();
    for (const e of record.newestFirst(300)) {
      const li = K.entryItem(e);
      if (role === "judge" && e.kind === "action") {
        li.append(K.html("button", { type: "button", class: "fill", onclick: () => {
          $("correct-target").value = e.seq; $("correct-text").value = e.action; $("correct-reason").focus(); } }, "correct…"));
      }
      log.append(li);
    }
  }

  function render(state, record) {
    document.body.dataset.seat = state.seat || "";
    $("phase").textContent = state.result ? `Game over: ${state.result}` : `${state.game}: ${state.phase || ""}`;
    $("delay").textContent = state.delayed_min ? `(${state.delayed_min} min behind)` : "";
    const prompts = $("prompts");
    prompts.replaceChildren();
    for (const p of state.prompts) prompts.append(K.html("li", { "data-player": p.player || "" }, `${p.player || "anyone"}: ${p.text} (${p.rule})`));
    if (!state.prompts.length) prompts.append(K.html("li", { class: "idle" }, state.result || "nothing asked"));
    const warnings = $("warnings");
    warnings.replaceChildren(...(state.warnings || []).concat((state.differences || []).map((d) => `camera: ${d}`))
      .map((w) => K.html("li", { class: "sev-warning" }, w)));
    drawView(state);
    if (role === "player" || role === "judge") drawActions(state);
    if (role === "judge") {
      $("state-text").textContent = state.state_text || "";
      $("key-fingerprint").textContent = state.key_fingerprint || "(unsigned record)";
    }
    if (record) drawLog(record);
    document.body.dataset.version = state.version;
    document.body.dataset.history = state.history;
  }

  async function showJoinCodes() {
    const links = await (await fetch(`/join/links?k=${encodeURIComponent(key)}`)).json();
    const box = $("qr");
    box.replaceChildren();
    for (const [who, url] of Object.entries(links)) {
      box.append(K.html("figure", { "data-who": who },
        K.html("img", { src: `/join/qr/${who}.svg?k=${encodeURIComponent(key)}`, alt: `QR code to join as ${who}` }),
        K.html("figcaption", {}, K.html("b", {}, who === "spectator" ? "Spectators" : `Seat ${who}`), K.html("br"),
               K.html("a", { href: url }, url))));
    }
  }

  function open(credentials) {
    if (conn) conn.socket.disconnect();
    conn = K.connect(credentials, {
      hello(h) {
        if (h.judge_key) {
          key = h.judge_key;
          sessionStorage.setItem("kipukas-judge-key", key);
          const k = `?k=${encodeURIComponent(key)}`;
          $("dl-sqlite").href = `/export/record.sqlite${k}`;
          $("dl-json").href = `/export/record.json${k}`;
          $("dl-sheet").href = `/export/sheet${k}`;
          $("pin-form").classList.add("hidden");
          $("judge-tools").classList.remove("hidden");
          $("mine").classList.remove("hidden");
          $("mine-title").textContent = "Act for any seat";
          showJoinCodes();
        }
        if (h.role === "player") {
          $("mine").classList.remove("hidden");
          $("call-judge").classList.remove("hidden");
          $("title").textContent = `${document.body.dataset.game} · ${h.seat}`;
        }
      },
      state: render,
      log: drawLog,
      refused(why) {
        notice(`Not admitted: ${why}`, "bad");
        if (role === "judge") { conn.socket.disconnect(); $("pin-form").classList.remove("hidden"); }
      },
    });
  }

  // --- the replay: the judge's view after any row, fetched over HTTP with the judge key ------------------------
  function replay() {
    key = sessionStorage.getItem("kipukas-judge-key") || "";
    $("replay-controls").classList.remove("hidden");
    let seq = Number(new URLSearchParams(location.search).get("row") || 0), last = 1, ticket = 0;
    async function show(n) {
      const mine = ++ticket;
      const res = await fetch(`/replay/state/${n}.json?k=${encodeURIComponent(key)}`);
      if (mine !== ticket) return;
      if (!res.ok) { notice(res.status === 403 ? "Open the replay from the judge page (judge key needed)." : `Row ${n}: ${res.status}`, "bad"); return; }
      const view = await res.json();
      seq = n; last = view.last_seq;
      $("scrub").max = last; $("scrub").value = seq;
      $("row-title").textContent = `Row ${seq} of ${last}`;
      history.replaceState(null, "", `/replay?row=${seq}`);
      $("row").replaceChildren(view.row ? K.entryItem(view.row) : K.html("li", { class: "idle" }, "(not a row players see)"));
      render(view, null);
      const rec = K.Record(); rec.merge(view.log); drawLog(rec);
    }
    const go = (n) => show(Math.max(1, Math.min(last, n)));
    $("first").addEventListener("click", () => go(1));
    $("prev").addEventListener("click", () => go(seq - 1));
    $("next").addEventListener("click", () => go(seq + 1));
    $("last").addEventListener("click", () => go(last));
    $("scrub").addEventListener("input", () => go(Number($("scrub").value)));
    show(seq || 1).then(() => { if (!new URLSearchParams(location.search).get("row")) go(last); });
  }

  $("action-form").addEventListener("submit", (ev) => { ev.preventDefault(); act($("action").value.trim()); });
  $("call-judge").addEventListener("click", async () => {
    const ack = await conn.send("call_judge", {});
    notice(ack.ok ? "A judge has been called." : ack.error, ack.ok ? "ok" : "bad");
  });
  $("undo-form").addEventListener("submit", async (ev) => {
    ev.preventDefault();
    if (report(await conn.send("undo", { reason: $("undo-reason").value }), "Undo").ok) $("undo-reason").value = "";
  });
  $("correct-form").addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const ack = await conn.send("correct", { target: Number($("correct-target").value), text: $("correct-text").value.trim(),
                                             reason: $("correct-reason").value });
    if (report(ack, "Correction").ok) $("correct-reason").value = "";
  });
  $("pin-form").addEventListener("submit", (ev) => { ev.preventDefault(); sessionStorage.setItem("kipukas-pin", $("pin").value); open({ pin: $("pin").value }); });

  if (role === "replay") replay();
  else if (role === "judge") {
    const saved = sessionStorage.getItem("kipukas-pin");
    const onThePi = ["127.0.0.1", "localhost", "[::1]"].includes(location.hostname);
    if (saved !== null) open({ pin: saved });
    else if (onThePi) open({ pin: "" });
    else $("pin-form").classList.remove("hidden");
  } else open(token ? { token } : {});
})();

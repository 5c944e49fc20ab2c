// The judge page: full state, timeline with keyframes, undo/correct with a reason, warnings, join codes.
"use strict";
(function () {
  const K = window.Kipukas;
  const $ = (id) => document.getElementById(id);
  const board = K.Board($("overlay"));
  const cameraView = K.CameraView();
  let conn = null, key = null, keyframes = {};

  const notice = K.notice;

  function report(ack, what) {
    if (!ack.ok) notice(`${what}: ${ack.error}`, "bad");
    else if (ack.entry && ack.entry.accepted === false) notice(`Rejected ${ack.entry.rule}: ${ack.entry.message}`, "bad");
    else notice(`${what} recorded as row ${ack.entry.seq}: ${ack.entry.label || ack.entry.action}`
                + (ack.entry.message ? ` (${ack.entry.message})` : ""), "ok");
    return ack;
  }

  async function showJoinCodes() {
    const links = await (await fetch(`/join/links?k=${encodeURIComponent(key)}`)).json();
    const box = $("qr");
    box.innerHTML = "";
    // On a phone the board comes first and the codes wait behind a tap; a desktop has room for them.
    if (window.matchMedia("(min-width: 900px)").matches) box.closest("details").open = true;
    for (const [who, url] of Object.entries(links)) {
      box.append(K.html("figure", { "data-who": who },
        K.html("img", { src: `/join/qr/${who}.svg?k=${encodeURIComponent(key)}`, alt: `QR code to join as ${who}` }),
        K.html("figcaption", {}, K.html("b", {}, who === "spectator" ? "Spectators" : `Seat ${who}`), K.html("br"),
               K.html("a", { href: url }, url))));
    }
  }

  function drawTimeline(record) {
    const log = $("log");
    log.innerHTML = "";
    for (const e of record.newestFirst(400)) {
      const li = K.entryItem(e);
      for (const camera of keyframes[e.seq] || []) {
        const src = `/keyframe/${e.seq}/${camera}.jpg?k=${encodeURIComponent(key)}`;
        li.append(K.html("a", { href: src, target: "_blank", rel: "noopener", class: "thumb-link",
                                "aria-label": `Enlarge the ${camera} camera at row ${e.seq}` },
                         K.html("img", { class: "thumb", loading: "lazy", alt: `${camera} camera at row ${e.seq}`, src })));
      }
      li.append(K.html("a", { class: "replay-from", href: `/replay?row=${e.seq}` }, "replay from here"));
      if (e.kind === "action") {
        li.append(K.html("button", { type: "button", class: "fill", onclick: () => {
          $("correct-target").value = e.seq; $("correct-text").value = e.action; $("correct-reason").focus(); } },
          "correct…"));
      }
      log.append(li);
    }
  }

  function render(state, record) {
    keyframes = state.keyframes || {};
    board(state);
    cameraView(state);
    $("phase").textContent = K.statusText(state);
    K.syncBanner($("sync"), state);
    $("state-text").textContent = state.state_text || "";
    $("key-fingerprint").textContent = state.key_fingerprint || "(unsigned record)";
    const warnings = $("warnings");
    warnings.innerHTML = "";
    const alerts = state.alerts || state.warnings.map((message) => ({ severity: "warning", message }));
    for (const a of alerts) warnings.append(K.html("li", { class: `sev-${a.severity}`, "data-severity": a.severity }, `${a.severity}: ${a.message}`));
    if (!alerts.length) warnings.append(K.html("li", { class: "idle" }, "none"));
    const prompts = $("prompts");
    prompts.innerHTML = "";
    for (const p of state.prompts) prompts.append(K.html("li", { "data-player": p.player || "" }, `${p.player || "anyone"}: ${p.text}`));
    for (const q of state.questions) prompts.append(K.html("li", { "data-player": q.player }, `${q.player}: ${q.text} ${q.options.join(" / ")}`));
    const hands = $("hands");
    hands.innerHTML = "";
    for (const [p, cards] of Object.entries(state.hand_cards || {})) {
      const name = (id) => (state.names && state.names[id] ? `${state.names[id]} (${id})` : id);
      hands.append(K.html("li", {}, K.html("b", {}, `${p} hand: `), cards.map((c) => `${c.title} · ${c.type} (${c.id})`).join(", ") || "empty",
                          K.html("br"), `deck: ${(state.deck_cards[p] || []).map(name).join(", ") || "empty"}`));
    }
    drawTimeline(record);
    document.body.dataset.version = state.version;
  }

  function open(pin) {
    if (conn) conn.socket.disconnect();
    conn = K.connect({ pin }, {
      hello(h) {
        key = h.judge_key;
        sessionStorage.setItem("kipukas-judge-key", key);  // the replay page's requests carry it too
        const k = `?k=${encodeURIComponent(key)}`;
        $("dl-sqlite").href = `/export/record.sqlite${k}`;
        $("dl-json").href = `/export/record.json${k}`;
        $("dl-sheet").href = `/export/sheet${k}`;
        $("pin-form").className = "hidden";
        showJoinCodes();
      },
      state: render,
      log: drawTimeline,
      refused(why) { notice(`Not admitted: ${why}`, "bad"); conn.socket.disconnect(); $("pin-form").className = "judge-form panel"; },
    });
  }

  $("pin-form").addEventListener("submit", (ev) => { ev.preventDefault(); sessionStorage.setItem("kipukas-pin", $("pin").value); open($("pin").value); });
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
  $("action-form").addEventListener("submit", async (ev) => {
    ev.preventDefault();
    if (report(await conn.send("act", { text: $("action").value.trim() }), "Action").ok) $("action").value = "";
  });
  const saved = sessionStorage.getItem("kipukas-pin");
  // On the Pi itself a table without a PIN admits its judge directly; elsewhere an empty try would only
  // count against the address's refused attempts, so the page waits for the PIN.
  const onThePi = ["127.0.0.1", "localhost", "[::1]"].includes(location.hostname);
  if (saved !== null) open(saved);
  else if (onThePi) open("");
})();

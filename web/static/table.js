// The table page: a player's phone (with a seat token in the URL, ?t=...) or a spectator's view.
"use strict";
(function () {
  const K = window.Kipukas;
  const $ = (id) => document.getElementById(id);
  // The seat token comes in the QR code's link; keep it for this tab and take it out of the address bar
  // (and the history), so a glance at the phone or a shared screenshot does not hand the seat over.
  const token = new URLSearchParams(location.search).get("t") || sessionStorage.getItem("kipukas-seat-token");
  if (token) {
    sessionStorage.setItem("kipukas-seat-token", token);
    history.replaceState(null, "", location.pathname);
  }
  const board = K.Board($("overlay"));
  const cameraView = K.CameraView();
  const choices = K.Choices($("choices"), (text) => act(text));

  // The stands this seat may move to now, ringed on the map.
  function drawTargets(state) {
    const overlay = $("overlay");
    let g = overlay.querySelector("#targets");
    if (!g) g = K.svg("g", { id: "targets" }, overlay);
    g.replaceChildren();
    const pos = Object.fromEntries(state.map.stands.map((s) => [s.id, s]));
    for (const id of (state.choices && state.choices.targets) || []) {
      const s = pos[id];
      if (s) K.svg("circle", { cx: s.x, cy: s.y, r: 9, class: "target", "data-stand": id }, g);
    }
  }
  let me = { role: "spectator", seat: null };
  const notice = K.notice;

  async function act(text) {
    const ack = await conn.send("act", { text });
    if (!ack.ok) notice(ack.error, "bad");
    else if (!ack.entry.accepted) notice(`Rejected ${ack.entry.rule}: ${ack.entry.message}`, "bad");
    else { notice(`Recorded: ${ack.entry.action}`, "ok"); $("action").value = ""; }
    return ack;
  }

  // Answer controls from a prompt's notation hint, e.g. "(red trap K-LE#0001 sprung|idle)".
  function hints(text, seat) {
    const out = [];
    for (const m of text.matchAll(/\(([^()]*)\)/g)) {
      const hint = m[1].split(";")[0].trim();
      if (!hint.startsWith(seat + " ")) continue;
      if (hint.includes(`|${seat} `)) { out.push(...hint.split("|").map((h) => h.trim())); continue; }
      const words = hint.split(" ");
      const alt = words.findIndex((w) => w.includes("|") && !w.includes("<"));
      if (alt < 0) { out.push(hint); continue; }
      for (const option of words[alt].split("|")) out.push([...words.slice(0, alt), option, ...words.slice(alt + 1)].join(" "));
    }
    return out;
  }

  function control(line) {
    const placeholder = /<[^>]*>|\.\.\.|\b[a-z],[a-z]\b|\bn$/;
    const range = line.match(/^(.*) <(\d+)-(\d+)>$/);
    if (range) {
      const input = K.html("input", { type: "number", min: range[2], max: range[3], inputMode: "numeric",
                                      placeholder: `${range[2]}-${range[3]}`, class: "dice" });
      return K.html("form", { class: "answer", onsubmit: (ev) => { ev.preventDefault(); act(`${range[1]} ${input.value}`); } },
                    K.html("span", {}, range[1]), " ", input, " ", K.html("button", { type: "submit" }, "Send"));
    }
    if (!placeholder.test(line)) {
      return K.html("button", { type: "button", class: "answer", "data-line": line, onclick: () => act(line) },
                    line.split(" ").slice(1).join(" "));
    }
    const start = line.split(placeholder)[0];
    return K.html("button", { type: "button", class: "answer fill", onclick: () => {
      $("action").value = start; $("action").focus(); } }, `${line.split(" ").slice(1).join(" ")} …`);
  }

  function drawMine(state) {
    const list = $("my-prompts");
    list.innerHTML = "";
    for (const p of state.prompts.filter((p) => p.mine && p.player)) {
      if (p.text.includes(" means ")) continue;  // the means chooser below answers it
      const li = K.html("li", { "data-rule": p.rule }, K.html("span", { class: "rule" }, p.rule), " ", p.text);
      const controls = K.html("div", { class: "controls" });
      for (const line of hints(p.text, me.seat)) controls.append(control(line));
      li.append(controls);
      list.append(li);
    }
    for (const r of state.camera_rolls || []) {  // the camera read a roll: one tap confirms it
      const li = K.html("li", { class: "camera-roll", "data-roll": r.id }, `camera: ${r.prefix} — ${r.label}`);
      const confirm = K.html("button", { type: "button", class: "answer confirm-roll", onclick: async () => {
        const ack = await conn.send("confirm_roll", { id: r.id });
        if (!ack.ok) notice(ack.error, "bad");
        else if (!ack.entry.accepted) notice(`Rejected ${ack.entry.rule}: ${ack.entry.message}`, "bad");
        else notice(`Recorded: ${ack.entry.action}`, "ok");
      } }, `${r.label} — confirm`);
      const correct = K.html("button", { type: "button", class: "answer fill", onclick: () => {
        $("action").value = `${r.prefix} `; $("action").focus(); } }, "correct it…");
      li.append(K.html("div", { class: "controls" }, confirm, " ", correct));
      list.append(li);
    }
    for (const q of state.questions.filter((q) => q.mine)) {
      const li = K.html("li", { class: "question" }, q.text);
      const controls = K.html("div", { class: "controls" });
      for (const option of q.options) controls.append(K.html("button", { type: "button", class: "answer",
        "data-line": option, onclick: () => act(option) }, option));
      li.append(controls);
      list.append(li);
    }
    const choosing = !$("means").classList.contains("hidden");
    if (!list.children.length && !choosing) list.append(K.html("li", { class: "idle" }, "Nothing asked of you right now."));
  }

  function drawBout(state) {
    const el = $("bout");
    const meansEl = $("means");
    meansEl.className = "means hidden";
    meansEl.innerHTML = "";
    const b = state.bout;
    if (!b) { el.textContent = "no bout under way"; return; }
    const cards = Object.fromEntries(state.cards.filter((c) => c.id).map((c) => [c.id, c]));
    const name = (id) => (cards[id] ? `${cards[id].title} (${cards[id].owner})` : id);
    const side = (what, id) => {
      const chosen = b[`${what}_chosen`], means = b[`${what}_means`], card = cards[id];
      const label = means ? `${means} (${card && card.means[means - 1] ? card.means[means - 1].name : "?"})`
                          : chosen ? "chosen, hidden until both have chosen" : "not chosen yet";
      const roll = b[`${what}_roll`];
      return K.html("li", { "data-side": what }, `${what}: ${name(id)} · means ${label}` + (roll != null ? ` · rolled ${roll}` : ""));
    };
    el.innerHTML = "";
    el.append(K.html("p", {}, b.final ? "Final blow" : "KEAL means bout"),
              K.html("ul", {}, side("attack", b.attacker), side("defence", b.defender)));
    if (b.final || !me.seat) return;
    for (const [what, id] of [["attack", b.attacker], ["defence", b.defender]]) {
      const card = cards[id];
      if (!card || card.owner !== me.seat || b[`${what}_chosen`]) continue;
      meansEl.className = "means";
      meansEl.append(K.html("p", {}, `Choose in secret the KEAL means of ${card.title}:`));
      card.means.forEach((m, i) => {
        meansEl.append(K.html("button", { type: "button", class: "answer means-choice", "data-index": i + 1,
          disabled: m.injuries >= m.tolerates, onclick: () => act(`${me.seat} means ${card.id} ${i + 1}`) },
          `${i + 1}. ${m.name}`));
      });
    }
  }

  function chip(c) {
    const text = c.title ? `${c.title}${c.revealed ? "" : " (face down)"}` : "face-down card";
    return K.html("span", { class: `chip ${c.revealed ? "up" : "down"}`, "data-owner": c.owner,
                            style: `border-color:${K.colour(c.owner)}` }, text);
  }

  function drawCards(state) {
    const mat = $("mat");
    mat.innerHTML = "";
    const byTerritory = new Map();
    for (const c of state.cards) {
      const key = c.territory || c.at || "transit";
      if (!byTerritory.has(key)) byTerritory.set(key, []);
      byTerritory.get(key).push(c);
    }
    for (const [territory, cards] of [...byTerritory.entries()].sort()) {
      const claim = state.claims[territory];
      const head = `Territory ${territory}` + (claim ? ` (${claim.owner} ${claim.kind})` : "");
      mat.append(K.html("li", { "data-territory": territory }, K.html("b", {}, head), " ", ...cards.map(chip)));
    }
    if (!mat.children.length) mat.append(K.html("li", { class: "idle" }, "no cards on the mat"));
    const hand = $("hand");
    hand.innerHTML = "";
    $("hand-title").className = me.seat ? "" : "hidden";
    for (const c of [...(state.hand || []), ...(state.effects || [])]) {
      hand.append(K.html("li", { "data-card": c.id }, `${c.title} (${c.id})${c.zone === "effect" ? " · effect" : ""}`));
    }
    const souls = $("souls");
    souls.innerHTML = "";
    for (const c of state.cards.filter((c) => c.means && c.means.length)) {
      const li = K.html("li", { "data-card": c.id }, K.html("b", { style: `color:${K.colour(c.owner)}` }, c.title),
                        ` on ${c.at}${c.exhausted ? " · exhausted" : ""}`);
      const list = K.html("ul", { class: "damage" });
      for (const m of c.means) {
        const pips = "●".repeat(Math.min(m.injuries, 9)) + "○".repeat(Math.max(0, m.tolerates - m.injuries));
        list.append(K.html("li", { class: m.injuries >= m.tolerates ? "spent" : "" }, `${m.name} `,
                           K.html("span", { class: "pips", title: `${m.injuries} of ${m.tolerates} injuries` }, pips)));
      }
      li.append(list);
      souls.append(li);
    }
    if (!souls.children.length) souls.append(K.html("li", { class: "idle" }, "no souls you can see"));
    const fmt = (o) => Object.entries(o).map(([p, n]) => `${p} ${n}`).join(", ");
    $("counts").textContent = `Cards in hand: ${fmt(state.hands)} · in deck: ${fmt(state.decks)}`;
    const legend = $("legend");
    legend.innerHTML = "";
    for (const [t, claim] of Object.entries(state.claims)) {
      legend.append(K.html("li", {}, K.html("span", { style: `color:${K.colour(claim.owner)}` }, "●"),
                           ` territory ${t}: ${claim.owner} ${claim.kind}`));
    }
  }

  function drawPrompts(state) {
    const list = $("prompts");
    list.innerHTML = "";
    for (const p of [...state.prompts, ...state.questions.map((q) => ({ ...q, text: `${q.text} ${q.options.join(" / ")}` }))]) {
      list.append(K.html("li", { "data-player": p.player || "" }, `${p.player ? p.player + ": " : ""}${p.text}`));
    }
  }

  function drawLog(record) {
    const log = $("log");
    log.innerHTML = "";
    for (const e of record.newestFirst(300)) log.append(K.entryItem(e));
  }

  function render(state, record) {
    board(state);
    cameraView(state);
    drawBout(state);
    drawCards(state);
    drawPrompts(state);
    if (me.seat) { drawMine(state); choices(state.choices || null); drawTargets(state); }
    drawLog(record);
    $("phase").textContent = K.statusText(state);
    $("delay").textContent = state.delayed_min ? `(shown ${state.delayed_min} min late)` : "";
    K.syncBanner($("sync"), state);
    document.body.dataset.version = state.version;
    document.body.dataset.seq = state.seq;
  }

  const conn = K.connect(token ? { token } : {}, {
    hello(h) {
      me = h;
      document.body.dataset.seat = h.seat || "";
      $("title").textContent = h.seat ? `Kipukas · you are ${h.seat}` : "Kipukas table";
      $("mine").className = h.seat ? "panel mine" : "panel hidden";
      $("call-judge").className = h.seat ? "call-judge" : "call-judge hidden";
      if (h.seat) $("action").placeholder = `e.g. ${h.seat} roll d20 12`;
    },
    state: render,
    log: drawLog,
    refused: (why) => notice(`Cannot join: ${why}`, "bad"),
  });
  $("action-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    const text = $("action").value.trim();
    if (text) act(text);
  });
  $("call-judge").addEventListener("click", async () => {
    const ack = await conn.send("call_judge", {});
    notice(ack.ok ? "A judge has been called." : ack.error, ack.ok ? "ok" : "bad");
  });
  if (document.body.dataset.role === "player" && !token) notice("No seat token in this link: scan your seat's QR code.", "bad");
})();

// Tap to act: the choices the server sends for this seat (`state.choices`) as number pads for the dice
// that are due, a picker for the cards drawn, and the other allowed actions as a path of choices
// (verb, then card by name, then where). Every control is a real button; nothing here is typed.
"use strict";
window.Kipukas.Choices = function (container, act) {
  const K = window.Kipukas;
  let path = [];       // the words chosen so far of the action being built
  let dice = {};       // prefix -> faces chosen so far
  let drawn = [];      // card ids picked for a draw
  let last = null;

  const label = (word, names) => (names[word] ? `${names[word]} · ${word}` : word);
  const button = (text, onclick, attrs) => K.html("button", { type: "button", class: "answer", onclick, ...(attrs || {}) }, text);

  function pad(group) {
    const chosen = dice[group.prefix] || [];
    const box = K.html("div", { class: "pad", "data-prefix": group.prefix });
    const die = chosen.length;
    const what = group.prefix.split(" ").slice(1).join(" ");
    box.append(K.html("p", { class: "pad-title" },
      `${what}: ` + (group.total ? `total, 1 to ${group.dice[0]}`
        : group.dice.length > 1 ? `die ${die + 1} of ${group.dice.length} (D${group.dice[die]})` : `D${group.dice[0]}`)
      + (chosen.length ? ` · so far ${chosen.join(", ")}` : "")));
    const grid = K.html("div", { class: "pad-grid" });
    for (let v = 1; v <= group.dice[die]; v++) {
      grid.append(button(String(v), () => {
        const faces = [...chosen, v];
        if (faces.length === group.dice.length) {
          dice[group.prefix] = [];
          act(`${group.prefix} ${group.total ? "=" : ""}${faces.join(",")}`);
        }
        else { dice[group.prefix] = faces; draw(last); }
      }, { "data-face": v, "aria-label": `${what}: ${v}` }));
    }
    box.append(grid);
    if (chosen.length) box.append(button("Start the roll again", () => { dice[group.prefix] = []; draw(last); }, { class: "answer fill" }));
    return box;
  }

  function drawPicker(choices) {
    const d = choices.draw;
    const want = d.counts[0];
    const box = K.html("div", { class: "draw-picker" },
      K.html("p", {}, `Draw: tap the ${want} card${want > 1 ? "s" : ""} you drew (${drawn.length} of ${want})`));
    const grid = K.html("div", { class: "controls" });
    for (const c of d.deck) {
      const on = drawn.includes(c.id);
      grid.append(button(`${c.title} · ${c.type}`, () => {
        drawn = on ? drawn.filter((x) => x !== c.id) : [...drawn, c.id];
        if (drawn.length === want) { const ids = drawn; drawn = []; act(`${choices.seat} draw ${ids.join(",")}`); }
        else draw(last);
      }, { class: on ? "answer picked" : "answer", "data-card": c.id, "aria-pressed": on ? "true" : "false" }));
    }
    box.append(grid);
    return box;
  }

  function draw(choices) {
    last = choices;
    container.replaceChildren();
    if (!choices) return;
    for (const group of choices.dice) container.append(pad(group));
    if (choices.draw && choices.draw.counts.length) container.append(drawPicker(choices));
    const open = choices.paths.filter((p) => path.every((w, i) => p[i] === w));
    if (path.length && !open.length) path = [];
    const options = new Map();
    for (const p of (path.length ? open : choices.paths)) {
      if (p.length > path.length) options.set(p[path.length], p.length === path.length + 1);
    }
    if (options.size || path.length) {
      const box = K.html("div", { class: "tree" });
      if (path.length) {
        box.append(K.html("p", { class: "tree-path" }, path.map((w, i) => (i === 0 ? choices.verbs[w] || w : label(w, choices.names))).join(" › ")));
      }
      const grid = K.html("div", { class: "controls" });
      for (const [word, leaf] of options) {
        const text = path.length === 0 ? choices.verbs[word] || word : label(word, choices.names);
        grid.append(button(text, () => {
          const full = [...path, word];
          if (leaf && !choices.paths.some((p) => p.length > full.length && full.every((w, i) => p[i] === w))) {
            path = [];
            act(`${choices.seat} ${full.join(" ")}`);
          } else { path = full; draw(last); }
        }, { "data-word": word }));
      }
      box.append(grid);
      if (path.length) box.append(button("Back", () => { path = path.slice(0, -1); draw(last); }, { class: "answer fill" }));
      container.append(box);
    }
  }
  return draw;
};

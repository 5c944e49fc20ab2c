// The judge's replay: step or scrub through the record row by row; each row shows the board, the mat,
// the verdict and both cameras' keyframes (tap to enlarge), with camera/record differences marked.
"use strict";
(function () {
  const K = window.Kipukas;
  const $ = (id) => document.getElementById(id);
  const key = sessionStorage.getItem("kipukas-judge-key") || "";
  const board = K.Board($("overlay"));
  let seq = Number(new URLSearchParams(location.search).get("row") || 0);
  let last = 1, loading = 0;

  async function show(n) {
    const ticket = ++loading;
    const res = await fetch(`/replay/state/${n}.json?k=${encodeURIComponent(key)}`);
    if (ticket !== loading) return;
    if (!res.ok) { K.notice(res.status === 403 ? "Open the replay from the judge page (judge key needed)." : `Row ${n}: ${res.status}`, "bad"); return; }
    const view = await res.json();
    seq = n; last = view.last_seq;
    $("scrub").max = last; $("scrub").value = seq;
    $("row-title").textContent = `Row ${seq} of ${last}`;
    history.replaceState(null, "", `/replay?row=${seq}`);
    board(view);
    K.syncBanner($("sync"), view);
    const row = $("row");
    row.replaceChildren(view.row ? K.html("ul", { class: "log" }, K.entryItem(view.row)) : K.html("p", {}, "(not a row players see)"));
    $("state-text").textContent = view.state_text || "";
    const mat = $("mat");
    mat.replaceChildren();
    for (const c of view.cards) mat.append(K.html("li", { "data-card": c.id || "" }, `${c.territory || c.at || "transit"}: ${c.title || "face-down card"} (${c.owner})${c.revealed ? "" : " · face down"}`));
    if (!view.cards.length) mat.append(K.html("li", { class: "idle" }, "no cards on the mat"));
    const frames = $("frames");
    frames.replaceChildren();
    for (const camera of view.keyframes) {
      const src = `/keyframe/${seq}/${camera}.jpg?k=${encodeURIComponent(key)}`;
      frames.append(K.html("button", { type: "button", class: "frame", "aria-label": `Enlarge the ${camera} camera at row ${seq}`,
        onclick: () => { $("zoom-img").src = src; $("zoom-img").alt = `${camera} camera at row ${seq}`; $("zoom").showModal(); } },
        K.html("img", { src, alt: `${camera} camera at row ${seq}`, loading: "lazy", class: "thumb" })));
    }
    if (!view.keyframes.length) frames.append(K.html("p", { class: "idle" }, "no camera frame kept for this row"));
  }

  const go = (n) => show(Math.max(1, Math.min(last, n)));
  $("first").addEventListener("click", () => go(1));
  $("prev").addEventListener("click", () => go(seq - 1));
  $("next").addEventListener("click", () => go(seq + 1));
  $("last").addEventListener("click", () => go(last));
  $("scrub").addEventListener("input", () => go(Number($("scrub").value)));
  document.addEventListener("keydown", (ev) => {
    if (ev.key === "ArrowLeft") go(seq - 1);
    if (ev.key === "ArrowRight") go(seq + 1);
  });
  show(seq || 1).then(() => { if (!new URLSearchParams(location.search).get("row")) go(last); });
})();

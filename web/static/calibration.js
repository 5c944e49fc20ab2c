// Calibration page: get the judge key over Socket.IO (PIN as on the judge page), show the overlay, and let
// the judge drag the mat's corners; saving posts them and reloads the overlay drawn with the new pose.
"use strict";
(function () {
  const $ = (id) => document.getElementById(id);
  const SVG = "http://www.w3.org/2000/svg";
  let key = null, size = [1, 1], corners = [];

  const NAMES = ["top-left", "top-right", "bottom-right", "bottom-left"];
  const TOUCH_PX = 48;  // a handle's diameter on screen: a fingertip, whatever the picture's scale

  // Each handle is a ring a finger can hold (>= 44 CSS px at any zoom) with a dot at the exact corner;
  // it is also focusable, and the arrow keys nudge it by a pixel of the picture (Shift: ten).
  function drawHandles() {
    const svg = $("handles");
    svg.setAttribute("viewBox", `0 0 ${size[0]} ${size[1]}`);
    svg.innerHTML = "";
    const shown = svg.getBoundingClientRect().width || size[0];
    const perCss = size[0] / shown;  // picture pixels per CSS pixel
    const edge = document.createElementNS(SVG, "polygon");
    edge.setAttribute("class", "edge");
    edge.setAttribute("points", corners.map((p) => p.join(",")).join(" "));
    svg.appendChild(edge);
    corners.forEach((p, i) => {
      const g = document.createElementNS(SVG, "g");
      g.setAttribute("class", "handle");
      g.setAttribute("tabindex", "0");
      g.setAttribute("role", "slider");
      g.setAttribute("aria-label", `mat corner ${i + 1}, ${NAMES[i]}: arrow keys nudge it`);
      g.setAttribute("aria-valuetext", `x ${Math.round(p[0])}, y ${Math.round(p[1])}`);
      g.dataset.corner = i;
      const ring = document.createElementNS(SVG, "circle");
      ring.setAttribute("class", "ring");
      ring.setAttribute("cx", p[0]); ring.setAttribute("cy", p[1]); ring.setAttribute("r", (TOUCH_PX / 2) * perCss);
      ring.setAttribute("stroke-width", 2 * perCss);
      const dot = document.createElementNS(SVG, "circle");
      dot.setAttribute("class", "dot");
      dot.setAttribute("cx", p[0]); dot.setAttribute("cy", p[1]); dot.setAttribute("r", 3 * perCss);
      g.append(ring, dot);
      g.addEventListener("pointerdown", (ev) => drag(ev, i));
      g.addEventListener("keydown", (ev) => nudge(ev, i));
      svg.appendChild(g);
    });
  }

  function nudge(ev, i) {
    const step = ev.shiftKey ? 10 : 1;
    const d = { ArrowLeft: [-step, 0], ArrowRight: [step, 0], ArrowUp: [0, -step], ArrowDown: [0, step] }[ev.key];
    if (!d) return;
    ev.preventDefault();
    corners[i] = [corners[i][0] + d[0], corners[i][1] + d[1]];
    drawHandles();
    const again = $("handles").querySelector(`g.handle[data-corner='${i}']`);
    if (again) again.focus();
  }

  function drag(ev, i) {
    ev.preventDefault();
    const svg = $("handles");
    const r0 = svg.getBoundingClientRect();
    const start = [(ev.clientX - r0.left) * size[0] / r0.width, (ev.clientY - r0.top) * size[1] / r0.height];
    const from = corners[i].slice();  // the corner keeps its offset from the finger: no jump on touch
    const move = (e) => {
      const r = svg.getBoundingClientRect();
      const at = [(e.clientX - r.left) * size[0] / r.width, (e.clientY - r.top) * size[1] / r.height];
      corners[i] = [from[0] + at[0] - start[0], from[1] + at[1] - start[1]];
      drawHandles();
    };
    const up = () => { window.removeEventListener("pointermove", move); window.removeEventListener("pointerup", up); };
    window.addEventListener("pointermove", move);
    window.addEventListener("pointerup", up);
  }
  window.addEventListener("resize", () => { if (corners.length) drawHandles(); });

  function showQuality(q) {
    const box = $("quality");
    if (!q) { box.textContent = "Calibration quality: not calibrated yet."; box.className = "quality warn"; return; }
    box.textContent = `Calibration quality: ${q.verdict} (reprojection error ${q.reprojection_error_px} px, ` +
      `${q.method}, ${q.points} points): ${q.advice}.`;
    box.className = `quality ${q.verdict === "good" ? "ok" : q.verdict === "usable" ? "warn" : "bad"}`;
  }

  async function load() {
    const res = await fetch(`/calibration/state?k=${encodeURIComponent(key)}`);
    if (!res.ok) { $("result").textContent = await res.text(); return; }
    const st = await res.json();
    size = st.image_size; corners = st.corners;
    showPalette(st.palette || {});
    showQuality(st.quality);
    $("frame").src = `/calibration/overlay.jpg?k=${encodeURIComponent(key)}&t=${Date.now()}`;
    drawHandles();
    $("save").disabled = $("refresh").disabled = false;
  }

  $("save").addEventListener("click", async () => {
    const res = await fetch(`/calibration/corners?k=${encodeURIComponent(key)}`, {
      method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ corners }),
    });
    const out = await res.json();
    $("result").textContent = out.ok ? `Saved: ${out.method}, reprojection error ${out.reprojection_error_px} px ` +
                                       `(${out.quality.verdict})` : `Not saved: ${out.error}`;
    $("result").className = out.ok ? "ok" : "bad";
    if (out.ok) load();
  });
  $("refresh").addEventListener("click", load);

  // One sample stand per seat: the first seat on territory 7's stand, the second on territory 4's.
  const SAMPLE_STANDS = ["T7", "T4", "T1", "T9"];
  function showPalette(palette) {
    const seats = Object.keys(palette);
    const box = $("palette");
    box.innerHTML = "";
    seats.forEach((seat, i) => {
      const label = document.createElement("label");
      const swatch = document.createElement("span");  // built as a node: a colour value never becomes markup
      Object.assign(swatch.style, { display: "inline-block", width: "1em", height: "1em",
                                    background: String(palette[seat]), border: "1px solid #000" });
      label.append(swatch, " ");
      const input = document.createElement("input");
      input.size = 3; input.value = SAMPLE_STANDS[i] || ""; input.dataset.seat = seat;
      label.append(`${seat} on `, input, " ");
      box.appendChild(label);
    });
    $("learn").disabled = seats.length === 0;
  }
  $("colours").addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const samples = {};
    for (const input of $("palette").querySelectorAll("input")) samples[input.value.trim()] = input.dataset.seat;
    const res = await fetch(`/calibration/colours?k=${encodeURIComponent(key)}`, {
      method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ samples }),
    });
    const out = await res.json();
    $("result").textContent = out.ok ? `Colours learned: ${Object.keys(out.palette).join(", ")}` : `Not learned: ${out.error}`;
    $("result").className = out.ok ? "ok" : "bad";
    if (out.ok) load();
  });

  function open(pin) {
    const socket = io("/table", { transports: ["websocket", "polling"], auth: { pin } });
    socket.on("hello", (h) => {
      if (!h.judge_key) { $("result").textContent = "This page is for judges."; return; }
      key = h.judge_key; $("conn").textContent = "judge"; $("conn").className = "conn on";
      $("pin-form").className = "bar hidden"; load();
    });
    socket.on("connect_error", (err) => { $("result").textContent = `Not admitted: ${err.message}`;
                                           $("pin-form").className = "bar"; });
  }
  $("pin-form").addEventListener("submit", (ev) => {
    ev.preventDefault(); sessionStorage.setItem("kipukas-pin", $("pin").value); open($("pin").value);
  });
  open(sessionStorage.getItem("kipukas-pin") || "");
})();

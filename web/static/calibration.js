// Calibration page: get the judge key over Socket.IO (PIN as on the judge page), show the overlay, and let
// the judge drag the mat's corners; saving posts them and reloads the overlay drawn with the new pose.
"use strict";
(function () {
  const $ = (id) => document.getElementById(id);
  const SVG = "http://www.w3.org/2000/svg";
  let key = null, size = [1, 1], corners = [];

  function drawHandles() {
    const svg = $("handles");
    svg.setAttribute("viewBox", `0 0 ${size[0]} ${size[1]}`);
    svg.innerHTML = "";
    const edge = document.createElementNS(SVG, "polygon");
    edge.setAttribute("class", "edge");
    edge.setAttribute("points", corners.map((p) => p.join(",")).join(" "));
    svg.appendChild(edge);
    corners.forEach((p, i) => {
      const c = document.createElementNS(SVG, "circle");
      c.setAttribute("class", "handle");
      c.setAttribute("cx", p[0]); c.setAttribute("cy", p[1]); c.setAttribute("r", size[0] / 90);
      c.dataset.corner = i;
      c.addEventListener("pointerdown", (ev) => drag(ev, i));
      svg.appendChild(c);
    });
  }

  function drag(ev, i) {
    ev.preventDefault();
    const svg = $("handles");
    const move = (e) => {
      const r = svg.getBoundingClientRect();
      corners[i] = [(e.clientX - r.left) * size[0] / r.width, (e.clientY - r.top) * size[1] / r.height];
      drawHandles();
    };
    const up = () => { window.removeEventListener("pointermove", move); window.removeEventListener("pointerup", up); };
    window.addEventListener("pointermove", move);
    window.addEventListener("pointerup", up);
  }

  async function load() {
    const res = await fetch(`/calibration/state?k=${encodeURIComponent(key)}`);
    if (!res.ok) { $("result").textContent = await res.text(); return; }
    const st = await res.json();
    size = st.image_size; corners = st.corners;
    showPalette(st.palette || {});
    $("frame").src = `/calibration/overlay.jpg?k=${encodeURIComponent(key)}&t=${Date.now()}`;
    drawHandles();
    $("save").disabled = $("refresh").disabled = false;
  }

  $("save").addEventListener("click", async () => {
    const res = await fetch(`/calibration/corners?k=${encodeURIComponent(key)}`, {
      method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ corners }),
    });
    const out = await res.json();
    $("result").textContent = out.ok ? `Saved: ${out.method}, reprojection error ${out.reprojection_error_px} px`
                                     : `Not saved: ${out.error}`;
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

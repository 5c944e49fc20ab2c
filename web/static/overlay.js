// The stream overlay (/overlay?t=<spectator token>): the board and the phase in large type on a
// transparent page for OBS, following the spectators' delay like every spectator view.
"use strict";
(function () {
  const K = window.Kipukas;
  const $ = (id) => document.getElementById(id);
  const token = new URLSearchParams(location.search).get("t");
  const board = K.Board($("overlay"));
  K.connect(token ? { token } : {}, {
    state(state) {
      board(state);
      $("phase").textContent = K.statusText(state);
      $("delay").textContent = state.delayed_min ? `(${state.delayed_min} min delay)` : "";
      document.body.dataset.version = state.version;
      document.body.dataset.seq = state.seq;
    },
    refused: (why) => K.notice(`Cannot join: ${why}`, "bad"),
  });
})();

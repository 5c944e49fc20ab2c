// The pages' service worker: the page shells and their assets come from the network when it answers
// and from the last copy when the Wi-Fi drops, so an installed page opens and shows its last state.
"use strict";
const CACHE = "kipukas-v1";
const SHELL = ["/watch", "/play", "/judge", "/overlay", "/static/table.css", "/static/common.js", "/static/table.js",
               "/static/choices.js", "/static/judge.js", "/static/game.js", "/static/overlay.js", "/static/socket.io.min.js",
               "/static/favicon.svg", "/map.jpg"];

self.addEventListener("install", (ev) => {
  ev.waitUntil(caches.open(CACHE).then((c) => c.addAll(SHELL)).catch(() => undefined));
});

self.addEventListener("fetch", (ev) => {
  const url = new URL(ev.request.url);
  if (ev.request.method !== "GET" || url.origin !== location.origin) return;
  const path = url.pathname;
  if (!SHELL.includes(path)) return;  // live data (socket, keyframes, exports) is never served stale
  ev.respondWith(fetch(ev.request).then((res) => {
    if (res.ok) { const copy = res.clone(); caches.open(CACHE).then((c) => c.put(path, copy)); }
    return res;
  }).catch(() => caches.match(path).then((hit) => hit || Response.error())));
});

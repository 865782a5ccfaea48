// A service worker that makes the demo cross-origin isolated on a static host that cannot send
// the headers for it (web/serve.py sends them itself): it adds Cross-Origin-Opener-Policy and
// Cross-Origin-Embedder-Policy to the page and to its workers' scripts, as they come from the
// site. Isolated, the page may share memory with its workers, which Ctrl-C in place needs
// (app.js: Pyodide's interrupt buffer on a SharedArrayBuffer). index.html registers it on a
// first visit and reloads once, so that the page loads under it; every other request (the
// modules, Pyodide, the snapshot) is left to the browser: they are all from this origin, which
// a cross-origin embedder policy lets through as they are.
const ISOLATION = {
  "Cross-Origin-Opener-Policy": "same-origin",
  "Cross-Origin-Embedder-Policy": "require-corp",
};
// What a document or worker is made from: the requests whose headers set its isolation.
const DESTINATIONS = new Set(["document", "worker"]);

self.addEventListener("install", () => self.skipWaiting());
self.addEventListener("activate", (event) => event.waitUntil(self.clients.claim()));

self.addEventListener("fetch", (event) => {
  const { request } = event;
  if (!DESTINATIONS.has(request.destination) || new URL(request.url).origin !== self.location.origin) return;
  event.respondWith(fetch(request).then(isolated));
});

function isolated(response) {
  if (response.type === "opaqueredirect" || response.status === 0) return response; // nothing to rewrite
  const headers = new Headers(response.headers);
  for (const [name, value] of Object.entries(ISOLATION)) headers.set(name, value);
  return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
}

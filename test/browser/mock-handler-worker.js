// A service worker that is the mock: a module worker importing the kit's browser bundle, answering its
// pages' requests under /plants with createMockHandler. The page posts the OpenAPI document (a JSON
// object) with a port to reply on; until then every request goes to the network as usual.
import { createMockHandler } from "/plantstore-handler.js";

let handler;

self.addEventListener("install", () => self.skipWaiting());
self.addEventListener("activate", (event) => event.waitUntil(self.clients.claim()));

self.addEventListener("message", (event) => {
  try {
    handler = createMockHandler({ document: event.data.document });
    const served = handler.engine.served.map(
      (s) => `${s.operation.method.toUpperCase()} ${s.operation.pathTemplate} ${s.served}`,
    );
    event.ports[0].postMessage({ served });
  } catch (error) {
    event.ports[0].postMessage({ error: String(error) });
  }
});

self.addEventListener("fetch", (event) => {
  const url = new URL(event.request.url);
  const ours =
    url.origin === self.location.origin && (url.pathname === "/plants" || url.pathname.startsWith("/plants/"));
  if (handler !== undefined && ours) event.respondWith(handler(event.request));
});

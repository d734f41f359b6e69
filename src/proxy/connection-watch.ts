import { subscribe } from "node:diagnostics_channel";
import type { Socket } from "node:net";
import { errors } from "undici";

/*
 * Bytes after the end of an answer, on undici's connections. undici reads on after an answer ends as
 * its Content-Length says; bytes that follow on the connection are no answer to anything, and it
 * closes the connection with an error that no request hears. node:http gives that error to the
 * request whose answer it read, and the proxy holds the upstream to it: the same here, by watching
 * each connection. undici's `undici:client:sendHeaders` channel (docs/api/DiagnosticsChannel.md)
 * names the socket a request goes out on; it is published in the same synchronous step as the
 * request's `onConnect`, after it and before any other request's, so the exchange that was just told
 * `onConnect` owns that socket until its record is made.
 */

/** An exchange on an undici connection, told when bytes came after its answer's end. */
export interface Watched {
  afterEnd(error: Error): void;
}

let connecting: Watched | undefined;
const owners = new WeakMap<Socket, Watched>();
const sockets = new WeakMap<Watched, Socket>();
const listened = new WeakSet<Socket>();
let watching = false;

/** The exchange whose request undici is writing now: called from its `onConnect`. */
export function connectingNow(exchange: Watched): void {
  connecting = exchange;
}

/** The exchange is over (its record made): its connection no longer names it, nor keeps it in memory. */
export function release(exchange: Watched): void {
  const socket = sockets.get(exchange);
  if (socket !== undefined && owners.get(socket) === exchange) owners.delete(socket);
  sockets.delete(exchange);
}

/** Starts watching undici's connections (once a process). */
export function watchConnections(): void {
  if (watching) return;
  watching = true;
  subscribe("undici:client:sendHeaders", (message) => {
    const exchange = connecting;
    connecting = undefined;
    // Another undici client's request (the process's fetch, say): not the proxy's.
    if (exchange === undefined) return;
    const { socket } = message as { socket: Socket };
    if (!listened.has(socket)) {
      listened.add(socket);
      socket.on("error", (error) => strayBytes(socket, error));
    }
    owners.set(socket, exchange);
    sockets.set(exchange, socket);
  });
}

/**
 * undici's errors for bytes after an answer: "bad response" (bytes where no answer was due) or a
 * parser error. Its closing of a connection it is done with, and the upstream's, are no fault.
 */
function strayBytes(socket: Socket, error: Error & { code?: unknown }): void {
  const stray =
    (error.code === "UND_ERR_SOCKET" && error.message === "bad response") || error instanceof errors.HTTPParserError;
  if (stray) owners.get(socket)?.afterEnd(error);
}

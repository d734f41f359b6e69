import { writeSync } from "node:fs";

/** One Int32 to wait on: Atomics.wait is the one way to sleep a thread without an event loop turn. */
const NAP = new Int32Array(new SharedArrayBuffer(4));

/**
 * A writer to a file descriptor that writes each chunk in full before it returns, as Node's own
 * stdout does on a file or a pipe on Linux: lines keep their order (output and errors alike), a
 * slow reader slows the writer rather than filling its memory, and whatever follows a write (a
 * ready file) follows it for the reader too. A full pipe (EAGAIN, when another thread made the
 * descriptor non-blocking) is waited out a millisecond at a time; once the reader is gone (EPIPE)
 * chunks are dropped and the command goes on (a server keeps serving).
 */
export function fdWriter(fd: number): (chunk: string | Uint8Array) => void {
  let closed = false;
  return (chunk) => {
    if (closed) return;
    const bytes = typeof chunk === "string" ? Buffer.from(chunk, "utf8") : chunk;
    for (let done = 0; done < bytes.length;) {
      try {
        done += writeSync(fd, bytes, done, bytes.length - done);
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (code === "EAGAIN") Atomics.wait(NAP, 0, 0, 1);
        else if (code === "EPIPE") return void (closed = true);
        else throw error;
      }
    }
  };
}

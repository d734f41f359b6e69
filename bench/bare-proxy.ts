import { startPassThrough } from "./pass-through.js";

// The ceiling for any proxy on this machine: a bare node:http pass-through (keep-alive pool, pipe
// both ways, no recording, no judging). `plantstore proxy` is measured against it and against direct.
startPassThrough(new URL(process.argv[2] ?? "http://127.0.0.1:4010"));

#!/usr/bin/env node
import { processIo } from "./io.js";
import { main } from "./main.js";
import { runInServerThread, runsInServerThread } from "./server-thread.js";

const argv = process.argv.slice(2);
process.exitCode = runsInServerThread(argv) ? await runInServerThread(argv) : await main(argv, processIo());

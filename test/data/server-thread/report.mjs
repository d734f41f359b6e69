// A server thread for src/cli/server-thread.test.ts: says what it was given, waits for its signal.
// It prints through Node's own streams, which the process's thread passes on.
import { parentPort, resourceLimits, workerData } from "node:worker_threads";

const [command] = workerData.argv;
if (command === "throw") setTimeout(() => Promise.reject(new Error("a failure no one caught")));
else if (command === "throw-null")
  setTimeout(() => {
    throw null;
  });
else {
  const { maxYoungGenerationSizeMb } = resourceLimits;
  process.stdout.write(`${JSON.stringify({ argv: workerData.argv, maxYoungGenerationSizeMb })}\n`);
  parentPort.once("message", (signal) => {
    process.stderr.write(`stopped by ${signal}\n`);
    process.exitCode = 3;
  });
}

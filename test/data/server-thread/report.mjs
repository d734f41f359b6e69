// A server thread for src/cli/server-thread.test.ts: says what it was given, waits for its signal.
import { parentPort, resourceLimits, workerData } from "node:worker_threads";

if (workerData.argv[0] === "throw") setTimeout(() => Promise.reject(new Error("a failure no one caught")));
else {
  const { maxYoungGenerationSizeMb } = resourceLimits;
  process.stdout.write(`${JSON.stringify({ argv: workerData.argv, maxYoungGenerationSizeMb })}\n`);
  parentPort.once("message", (signal) => {
    process.stderr.write(`stopped by ${signal}\n`);
    process.exitCode = 3;
  });
}

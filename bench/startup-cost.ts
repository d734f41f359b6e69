// Run as its own process: what a conformance run pays before its first request.
const t0 = performance.now();
const contractModule = await import("../src/contract/index.js");
const harness = await import("../src/harness/index.js");
const { DEFAULT_SPEC, DEFAULT_FIXTURES } = await import("../src/paths.js");
const t1 = performance.now();
const contract = await contractModule.loadContract(DEFAULT_SPEC);
const t2 = performance.now();
harness.loadFixtures(DEFAULT_FIXTURES, contract);
const t3 = performance.now();
process.stdout.write(JSON.stringify({ importMs: t1 - t0, loadContractMs: t2 - t1, loadFixturesMs: t3 - t2 }) + "\n");

export * from "./portable.js";
export { loadContract } from "./load-contract.js";

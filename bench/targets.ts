import { spawn, type ChildProcess } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { startPrism } from "../src/mock/prism.js";
import { KIT_ROOT } from "../src/paths.js";

export const BENCH_TOKEN = "bench-token-0123456789";
export type TargetName = "reference" | "bare" | "prism";

export interface Target {
  readonly name: TargetName;
  readonly url: string;
  readonly pid: number;
  /** From spawn to the first HTTP answer. */
  readonly startupMs: number;
  stop(): Promise<void>;
}

/** Resident set size of a process, from /proc (Linux). */
export function rssBytes(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return m === null ? NaN : Number(m[1]) * 1024;
}

async function firstAnswer(url: string, deadline: number): Promise<void> {
  while (Date.now() < deadline) {
    try {
      const res = await fetch(`${url}/plants`, {
        method: "POST",
        headers: { authorization: `Bearer ${BENCH_TOKEN}`, "content-type": "application/json" },
        body: "{}",
      });
      await res.arrayBuffer();
      return;
    } catch {
      await new Promise((r) => setTimeout(r, 5));
    }
  }
  throw new Error(`no answer from ${url}`);
}

function spawnAndWait(args: string[]): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, args, { stdio: ["ignore", "pipe", "inherit"] });
  return new Promise((resolve, reject) => {
    let out = "";
    child.stdout?.on("data", (c: Buffer) => {
      out += c.toString();
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) resolve({ child, url: m[1] as string });
    });
    child.once("exit", (code) => reject(new Error(`${args.join(" ")} exited with ${code}: ${out}`)));
  });
}

const stopChild = (child: ChildProcess) => (): Promise<void> =>
  new Promise((resolve) => {
    if (child.exitCode !== null) return resolve();
    child.once("exit", () => resolve());
    child.kill("SIGTERM");
    setTimeout(() => child.kill("SIGKILL"), 5_000).unref();
  });

/** Starts a target as its users start it, in its own process, and times it to its first answer. */
export async function startTarget(name: TargetName): Promise<Target> {
  const started = performance.now();
  if (name === "prism") {
    const prism = await startPrism({ port: 0 });
    await firstAnswer(prism.url, Date.now() + 60_000);
    return {
      name,
      url: prism.url,
      pid: prism.child.pid as number,
      startupMs: performance.now() - started,
      stop: () => prism.stop(),
    };
  }
  const args =
    name === "reference"
      ? [
          join(KIT_ROOT, "dist", "src", "cli", "bin.js"),
          "serve",
          "--port",
          "0",
          "--quiet",
          "--token",
          BENCH_TOKEN,
          "--max-plants",
          "100000000",
        ]
      : [join(KIT_ROOT, "dist", "bench", "bare-server.js")];
  const { child, url } = await spawnAndWait(args);
  await firstAnswer(url, Date.now() + 30_000);
  return { name, url, pid: child.pid as number, startupMs: performance.now() - started, stop: stopChild(child) };
}

/** `plantstore proxy` in its own process in front of `upstream`, as a CI job runs it. */
export async function startProxyTarget(upstream: string): Promise<{ url: string; pid: number; stop(): Promise<void> }> {
  const bin = join(KIT_ROOT, "dist", "src", "cli", "bin.js");
  const { child, url } = await spawnAndWait([bin, "proxy", "--target", upstream, "--port", "0"]);
  await firstAnswer(url, Date.now() + 30_000);
  return { url, pid: child.pid as number, stop: stopChild(child) };
}

/** The bare node:http pass-through (bench/bare-proxy.ts) in its own process in front of `upstream`. */
export async function startBareProxy(upstream: string): Promise<{ url: string; pid: number; stop(): Promise<void> }> {
  const { child, url } = await spawnAndWait([join(KIT_ROOT, "dist", "bench", "bare-proxy.js"), upstream]);
  await firstAnswer(url, Date.now() + 30_000);
  return { url, pid: child.pid as number, stop: stopChild(child) };
}

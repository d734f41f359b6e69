import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, sep } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { KIT_ROOT } from "../src/paths.js";

// The kit's floors, lowest first: a file imports its own floor or lower, never higher, and on one
// floor only its own folder (the mock half and the judging half know nothing of each other). This
// reads every source file (tests left out), builds the graph of relative imports and fails on an
// import cycle or an import against the floors, naming the files. bench/ stands beside the roof.

/** Module graph: a file (kit-relative, `/`-separated) to the kit's .ts files it imports. */
type Graph = ReadonlyMap<string, readonly string[]>;

interface Floor {
  readonly name: string;
  /** Folders (ending in `/`) and files on this floor. */
  readonly places: readonly string[];
  /** Whether its places may import each other (files that are one small thing, not separate parts). */
  readonly open?: boolean;
}

const FLOORS: readonly Floor[] = [
  { name: "the generated code", places: ["src/generated/"] },
  {
    name: "the shared leaves",
    places: [
      "src/clock.ts",
      "src/dict.ts",
      "src/errors.ts",
      "src/paths.ts",
      "src/regexp.ts",
      "src/shell.ts",
      "src/types.ts",
      "src/words.ts",
    ],
    open: true,
  },
  { name: "the contract", places: ["src/contract/"] },
  { name: "the two halves", places: ["src/server/", "src/handler/", "src/mock/", "src/harness/"] },
  { name: "the proxy", places: ["src/proxy/"] },
  { name: "the roof", places: ["src/cli/", "src/index.ts"] },
];
/**
 * The harness's own floors, lowest first, under the same rules: its wings are folders over the case
 * runner and its vocabulary, the stateful phase over the generator, the run over both, and the run
 * imports neither the reports nor the certificate.
 */
const HARNESS_FLOORS: readonly Floor[] = [
  { name: "the case runner and its vocabulary", places: ["src/harness/*"], open: true },
  { name: "the fixtures", places: ["src/harness/fixtures/"] },
  { name: "the generator", places: ["src/harness/generate/"] },
  { name: "the stateful phase", places: ["src/harness/stateful/"] },
  {
    name: "the run",
    places: ["src/harness/run.ts", "src/harness/selection.ts", "src/harness/preflight.ts"],
    open: true,
  },
  { name: "the reports and the certificate", places: ["src/harness/reporters/", "src/harness/certificate/"] },
  { name: "the harness's public face", places: ["src/harness/index.ts"] },
];
/** The harness's wings: a file outside one imports it only through its face, `index.ts`. */
const WINGS = ["fixtures", "generate", "stateful", "certificate", "reporters"].map((w) => `src/harness/${w}/`);
/** Same-floor imports across folders that are one thing: the fetch handler's browser entry is the server's. */
const SAME_FLOOR_ALLOWED: readonly (readonly [string, string])[] = [["src/handler/", "src/server/"]];

/**
 * The floor and place of a file, or undefined for a file on no floor (bench/). A place is a file, a
 * folder (`dir/`, with its subfolders) or a folder's own files (`dir/*`); the most specific wins.
 */
function placeOf(file: string, floors: readonly Floor[]): { floor: number; place: string } | undefined {
  let best: { floor: number; place: string; weight: number } | undefined;
  for (const [floor, f] of floors.entries())
    for (const place of f.places) {
      const own =
        place.endsWith("/*") && file.startsWith(place.slice(0, -1)) && !file.slice(place.length - 1).includes("/");
      const weight =
        file === place
          ? Infinity
          : place.endsWith("/") && file.startsWith(place)
            ? place.length
            : own
              ? place.length
              : -1;
      if (weight >= 0 && (best === undefined || weight > best.weight)) best = { floor, place, weight };
    }
  return best && { floor: best.floor, place: best.place };
}

/** Relative module specifiers of a source text: imports, `import type`, re-exports and `import()`. */
function relativeImports(text: string): string[] {
  // TypeScript's own scanner: comments and strings that merely look like imports are not taken for them.
  const { importedFiles } = ts.preProcessFile(text, true, true);
  return importedFiles.map((f) => f.fileName).filter((name) => name.startsWith("./") || name.startsWith("../"));
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith(".ts") && !entry.name.endsWith(".test.ts") ? [path] : [];
  });
}

/** The kit's import graph, and the imports that resolve to no file at all. */
function kitGraph(): { graph: Graph; unresolved: string[] } {
  const kitPath = (file: string): string => relative(KIT_ROOT, file).split(sep).join("/");
  const graph = new Map<string, string[]>();
  const unresolved: string[] = [];
  for (const file of ["src", "bench"].flatMap((root) => sourceFiles(join(KIT_ROOT, root)))) {
    const edges: string[] = [];
    for (const specifier of relativeImports(readFileSync(file, "utf8"))) {
      const target = join(dirname(file), specifier);
      const source = target.replace(/\.js$/, ".ts");
      // Only .ts sources take part in cycles; a .cjs or .json leaf is checked to exist, nothing more.
      if (existsSync(source) && source.endsWith(".ts")) edges.push(kitPath(source));
      else if (!existsSync(target)) unresolved.push(`${kitPath(file)}: ${specifier}`);
    }
    graph.set(kitPath(file), edges);
  }
  return { graph, unresolved };
}

/** Every import cycle, one per strongly connected component, as `a -> b -> a` (Tarjan's algorithm). */
function findCycles(graph: Graph): string[] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const components: string[][] = [];
  const visit = (node: string): void => {
    index.set(node, index.size);
    low.set(node, index.get(node)!);
    stack.push(node);
    for (const next of graph.get(node) ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node)!, low.get(next)!));
      } else if (stack.includes(next)) low.set(node, Math.min(low.get(node)!, index.get(next)!));
    }
    if (low.get(node) === index.get(node)) {
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        component.push(member);
      } while (member !== node);
      components.push(component);
    }
  };
  for (const node of [...graph.keys()].sort()) if (!index.has(node)) visit(node);
  return components
    .filter((c) => c.length > 1 || (graph.get(c[0]!) ?? []).includes(c[0]!))
    .map((c) => cyclePath(graph, new Set(c)));
}

/** The shortest way round a component, from its first file back to it, by breadth-first search. */
function cyclePath(graph: Graph, component: ReadonlySet<string>): string {
  const start = [...component].sort()[0]!;
  const cameFrom = new Map<string, string>();
  const queue = [start];
  for (let i = 0; i < queue.length; i++) {
    const node = queue[i]!;
    for (const next of graph.get(node) ?? []) {
      if (!component.has(next)) continue;
      if (next === start) {
        const path: string[] = [];
        for (let at = node; at !== start; at = cameFrom.get(at)!) path.unshift(at);
        return [start, ...path, start].join(" -> ");
      }
      if (!cameFrom.has(next)) {
        cameFrom.set(next, node);
        queue.push(next);
      }
    }
  }
  return [...component].join(", ");
}

/** Every import against the floors, with the floors it crosses; a source file on no floor is one too. */
function layerViolations(graph: Graph, floors: readonly Floor[]): string[] {
  return [...graph].flatMap(([file, imports]) => {
    if (file.startsWith("bench/")) return [];
    const from = placeOf(file, floors);
    if (from === undefined) return [`${file} is on no floor: add it to FLOORS`];
    return imports.flatMap((target) => {
      const to = placeOf(target, floors);
      if (to === undefined) return [`${file} imports ${target}, which is on no floor`];
      if (to.floor > from.floor)
        return [`${file} imports ${target}: ${floors[from.floor]!.name} is below ${floors[to.floor]!.name}`];
      const sameFloorOk =
        to.floor < from.floor ||
        to.place === from.place ||
        floors[from.floor]!.open === true ||
        SAME_FLOOR_ALLOWED.some(([a, b]) => from.place === a && to.place === b);
      return sameFloorOk
        ? []
        : [`${file} imports ${target}: ${from.place} and ${to.place} share a floor and know nothing of each other`];
    });
  });
}

/** Every import into a wing from outside it that passes by its face (bench/ measures the inside, so it may). */
function faceViolations(graph: Graph): string[] {
  return [...graph].flatMap(([file, imports]) =>
    file.startsWith("bench/")
      ? []
      : imports.flatMap((target) => {
          const wing = WINGS.find((w) => target.startsWith(w));
          if (wing === undefined || file.startsWith(wing) || target === `${wing}index.ts`) return [];
          return [`${file} imports ${target}: outside ${wing}, import its index.ts`];
        }),
  );
}

/** The harness's part of the graph: its files and their imports of each other. */
function harnessGraph(graph: Graph): Graph {
  const inside = (file: string): boolean => file.startsWith("src/harness/");
  return new Map([...graph].filter(([file]) => inside(file)).map(([file, to]) => [file, to.filter(inside)]));
}

describe("the extraction of imports", () => {
  it.each([
    ['import { a } from "./a.js";', ["./a.js"]],
    ['import type { A } from "../x/a.js";', ["../x/a.js"]],
    ['import {\n  a,\n  type B,\n} from "./a.js";', ["./a.js"]],
    ['export { a } from "./a.js";\nexport type { B } from "./b.js";', ["./a.js", "./b.js"]],
    ['export * from "./c.js";', ["./c.js"]],
    ['const m = async () => (await import("./lazy.js")).m;', ["./lazy.js"]],
    ['import "./side-effect.js";', ["./side-effect.js"]],
    ['import { readFileSync } from "node:fs";\nimport fc from "fast-check";', []],
    ['// import { a } from "./commented.js";\nconst s = \'import { b } from "./quoted.js"\';', []],
  ])("%j imports %j", (text, expected) => {
    expect(relativeImports(text)).toEqual(expected);
  });
});

describe("the checks on a graph", () => {
  const graph = (edges: Record<string, string[]>): Graph => new Map(Object.entries(edges));

  it.each([
    [{ "a.ts": ["b.ts"], "b.ts": ["c.ts"], "c.ts": [] }, []],
    [{ "a.ts": ["b.ts"], "b.ts": ["a.ts"] }, ["a.ts -> b.ts -> a.ts"]],
    [{ "a.ts": ["a.ts"] }, ["a.ts -> a.ts"]],
    [{ "x.ts": ["b.ts"], "b.ts": ["c.ts"], "c.ts": ["d.ts", "b.ts"], "d.ts": ["b.ts"] }, ["b.ts -> c.ts -> b.ts"]],
    [
      { "a.ts": ["b.ts"], "b.ts": ["a.ts"], "c.ts": ["d.ts"], "d.ts": ["c.ts"] },
      ["a.ts -> b.ts -> a.ts", "c.ts -> d.ts -> c.ts"],
    ],
  ])("cycles of %j: %j", (edges, expected) => {
    expect(findCycles(graph(edges)).sort()).toEqual(expected);
  });

  it.each([
    ["src/harness/curl.ts", "src/cli/args.ts", true],
    ["src/contract/contract.ts", "src/server/core.ts", true],
    ["src/contract/contract.ts", "src/harness/checks.ts", true],
    ["src/server/core.ts", "src/cli/io.ts", true],
    ["src/harness/index.ts", "src/proxy/index.ts", true],
    ["src/harness/checks.ts", "src/server/core.ts", true],
    ["src/server/core.ts", "src/harness/checks.ts", true],
    ["src/errors.ts", "src/contract/index.ts", true],
    ["src/errors.ts", "src/paths.ts", false],
    ["src/elsewhere.ts", "src/errors.ts", true],
    ["src/cli/conformance.ts", "src/harness/index.ts", false],
    ["src/proxy/start-proxy.ts", "src/harness/checks.ts", false],
    ["src/harness/checks.ts", "src/contract/index.ts", false],
    ["src/server/core.ts", "src/contract/portable.ts", false],
    ["src/handler/index.ts", "src/server/fetch-handler.ts", false],
    ["bench/harness.ts", "src/cli/main.ts", false],
  ])("%s importing %s breaks a floor: %s", (from, to, breaks) => {
    expect(layerViolations(graph({ [from]: [to] }), FLOORS)).toHaveLength(breaks ? 1 : 0);
  });

  it.each([
    ["src/harness/checks.ts", "src/harness/stateful/checks.ts", true],
    ["src/harness/generate/phase.ts", "src/harness/stateful/phase.ts", true],
    ["src/harness/generate/phase.ts", "src/harness/selection.ts", true],
    ["src/harness/run.ts", "src/harness/reporters/index.ts", true],
    ["src/harness/run.ts", "src/harness/certificate/index.ts", true],
    ["src/harness/certificate/certificate.ts", "src/harness/reporters/index.ts", true],
    ["src/harness/fixtures/load.ts", "src/harness/generate/index.ts", true],
    ["src/harness/stateful/phase.ts", "src/harness/generate/index.ts", false],
    ["src/harness/stateful/phase.ts", "src/harness/case-runner.ts", false],
    ["src/harness/run.ts", "src/harness/selection.ts", false],
    ["src/harness/case-runner.ts", "src/harness/checks.ts", false],
    ["src/harness/index.ts", "src/harness/reporters/index.ts", false],
  ])("inside the harness, %s importing %s breaks a floor: %s", (from, to, breaks) => {
    expect(layerViolations(graph({ [from]: [to] }), HARNESS_FLOORS)).toHaveLength(breaks ? 1 : 0);
  });

  it.each([
    ["src/harness/run.ts", "src/harness/stateful/phase.ts", true],
    ["src/cli/conformance.ts", "src/harness/reporters/junit.ts", true],
    ["src/harness/run.ts", "src/harness/stateful/index.ts", false],
    ["src/harness/stateful/phase.ts", "src/harness/stateful/plan.ts", false],
    ["bench/corpus-generation.ts", "src/harness/generate/requests.ts", false],
  ])("%s importing %s passes by a face: %s", (from, to, breaks) => {
    expect(faceViolations(graph({ [from]: [to] }))).toHaveLength(breaks ? 1 : 0);
  });
});

describe("the kit's own imports", () => {
  const { graph, unresolved } = kitGraph();

  it("all resolve to a file, and include the imports this test relies on seeing", () => {
    expect(unresolved).toEqual([]);
    expect(graph.size).toBeGreaterThan(50);
    // A dynamic import, a multi-line import and an `import type`: the graph would be blind without them.
    expect(graph.get("src/cli/main.ts")).toContain("src/cli/conformance.ts");
    expect(graph.get("src/cli/conformance.ts")).toContain("src/harness/index.ts");
    expect(graph.get("src/harness/generate/phase.ts")).toContain("src/harness/results.ts");
  });

  it("form no cycle", () => {
    expect(findCycles(graph)).toEqual([]);
  });

  it("point down the floors: the roof over the proxy, the proxy over the halves, the halves over the contract", () => {
    expect(layerViolations(graph, FLOORS)).toEqual([]);
  });

  it("inside the harness, point down its floors, and reach each wing through its face", () => {
    expect(layerViolations(harnessGraph(graph), HARNESS_FLOORS)).toEqual([]);
    expect(faceViolations(graph)).toEqual([]);
  });
});

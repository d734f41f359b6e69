// The fetch handler for browsers: dist/browser/plantstore-handler.js, one self-contained ES module for a
// <script type="module">, a service worker or a Playwright page, bundled by esbuild from tsc's output
// (so it runs after tsc). It is also the proof that nothing Node-only is on the handler's import path:
// with platform "browser" esbuild cannot resolve a Node built-in and fails, and the plugin below fails
// too where a package's "browser" field would quietly map a built-in away, naming the importer.
// Usage: node scripts/bundle-browser.mjs [ENTRY OUTFILE] (defaults: the kit's handler entry and bundle).
import { build } from "esbuild";
import { isBuiltin } from "node:module";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const entry = process.argv[2] ?? join(root, "dist", "src", "handler", "index.js");
const outfile = process.argv[3] ?? join(root, "dist", "browser", "plantstore-handler.js");

const noNodeBuiltins = {
  name: "no-node-builtins",
  setup(b) {
    b.onResolve({ filter: /.*/ }, (args) => {
      if (args.kind === "entry-point" || !isBuiltin(args.path)) return undefined;
      const by = relative(root, args.importer);
      const text = `${args.path} is a Node built-in (imported by ${by}); nothing the browser handler imports may need Node`;
      return { errors: [{ text }] };
    });
  },
};

try {
  const result = await build({
    entryPoints: [entry],
    outfile,
    bundle: true,
    format: "esm",
    platform: "browser",
    target: "es2022",
    minify: true,
    metafile: true,
    logLevel: "error",
    plugins: [noNodeBuiltins],
  });
  // Self-contained: a page loads it by URL, where a bare import ("ajv") cannot be resolved.
  const imports = Object.values(result.metafile.outputs).flatMap((o) => o.imports.map((i) => i.path));
  if (imports.length > 0) throw new Error(`the bundle still imports ${imports.join(", ")}`);
} catch (error) {
  // esbuild has printed its errors already; this line says which step failed.
  const why = error instanceof Error ? error.message.split("\n")[0] : String(error);
  console.error(`browser bundle: ${relative(root, outfile)} not built: ${why}`);
  process.exitCode = 1;
}

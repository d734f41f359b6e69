import {
  appendFileSync,
  closeSync,
  existsSync,
  fsyncSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
  writeSync,
} from "node:fs";
import { open } from "node:fs/promises";
import { readExactJson, writeJson } from "../contract/portable.js";
import { KitError } from "../errors.js";
import type { ResourceStore, StoreChange } from "./engine-store.js";

/** How often a journal is folded into the snapshot: after this many changes, or as many as the store holds. */
export const COMPACT_AFTER = 10_000;

/** Items written between two turns of the event loop while a snapshot is written in the background. */
const ITEMS_PER_TURN = 2_000;

/** What a journal needs of the engine: its store, and the store written whole. */
interface Journalled {
  readonly store: ResourceStore;
  snapshot(): string;
}

/** An open `--save` journal. */
export interface Journal {
  /** Folds the journal into the snapshot in the background; resolves when it is written. */
  compact(): Promise<void>;
  /** Waits for a fold in flight, folds what is left, and closes the journal. */
  close(): Promise<void>;
}

/**
 * `--save FILE`: every change of the store appended to `FILE.journal` as one JSON line, written
 * before the answer that follows it (with `fsync`, flushed to the disk too; without, a killed
 * process loses nothing the kernel has, a power loss may), and folded into the snapshot `FILE` after
 * COMPACT_AFTER changes or as many as the store holds. A fold runs in the background: the journal so
 * far is set aside as `FILE.journal.1` and a new one started, the store's entries are copied (their
 * items are never changed in place, only replaced), and the copy is written a few thousand items per
 * turn of the event loop to a temporary file renamed to `FILE` (the old snapshot or the new one, never
 * a torn one); then `FILE.journal.1` goes. A restart reads `FILE`, then `FILE.journal.1`, then
 * `FILE.journal` (a change replayed over a snapshot that holds it changes nothing). Node only.
 */
export function openJournal(
  file: string,
  engine: Journalled,
  options: { readonly fsync: boolean; readonly compactAfter?: number },
): Journal {
  const journalFile = `${file}.journal`;
  let fd: number | undefined = openSync(journalFile, "a");
  let lines = 0;
  let folds = 0;
  let inFlight: Promise<void> | undefined;
  /** The last fold failed: its set-aside journal is kept, and a clean stop keeps the journal too. */
  let failed = false;
  const report = (error: unknown): void =>
    // The answer goes out anyway; the failure is said where the operator looks.
    console.error(`plantstore: --save ${file}: ${(error as Error).message}`);
  const compact = (): Promise<void> => {
    if (fd === undefined) return Promise.resolve();
    if (inFlight !== undefined) return inFlight;
    // The journal so far is set aside; the changes from now on go to a new one. A set-aside journal
    // of a fold that failed is still needed (FILE lacks its changes): this one is added to its end.
    const setAside = `${journalFile}.1`;
    try {
      const open = fd;
      fd = undefined;
      closeSync(open);
      if (existsSync(setAside)) {
        appendFileSync(setAside, readFileSync(journalFile));
        rmSync(journalFile);
      } else renameSync(journalFile, setAside);
    } catch (error) {
      report(error);
    }
    try {
      fd = openSync(journalFile, "a");
      lines = 0;
    } catch (error) {
      report(error);
      return Promise.resolve();
    }
    // The store as it is now: its entries copied, the items themselves shared (never changed in place).
    const copy = engine.store.snapshot();
    const temporary = `${file}.${process.pid}.${++folds}.tmp`;
    inFlight = writeSnapshot(temporary, copy, options.fsync)
      .then(() => {
        renameSync(temporary, file);
        rmSync(setAside, { force: true });
      })
      .catch((error: unknown) => {
        // FILE and the set-aside journal stand: a restart still has every change. The next fold retries.
        try {
          rmSync(temporary, { force: true });
        } catch {
          // what stands there is not ours to remove
        }
        report(error);
        failed = true;
      })
      .finally(() => (inFlight = undefined));
    return inFlight;
  };
  engine.store.onChange = (change: StoreChange) => {
    if (fd === undefined) return;
    try {
      writeSync(fd, `${writeJson(change)}\n`);
      if (options.fsync) fsyncSync(fd);
    } catch (error) {
      report(error);
    }
    if (++lines >= Math.max(options.compactAfter ?? COMPACT_AFTER, engine.store.size)) void compact();
  };
  // At start: the snapshot written whole (what the restart read, folded) and the journals emptied.
  const temporary = `${file}.${process.pid}.0.tmp`;
  writeFileSync(temporary, engine.snapshot());
  renameSync(temporary, file);
  closeSync(openSync(journalFile, "w"));
  rmSync(`${journalFile}.1`, { force: true });
  return {
    compact,
    close: async () => {
      await inFlight;
      failed = false;
      await compact();
      engine.store.onChange = undefined;
      if (fd !== undefined) closeSync(fd);
      fd = undefined;
      // Only a fold that succeeded makes the (empty) journal unneeded.
      if (!failed) rmSync(journalFile, { force: true });
    },
  };
}

/** Writes a copy of the store as snapshot() writes it, a few thousand items per turn of the event loop. */
async function writeSnapshot(
  temporary: string,
  copy: ReturnType<ResourceStore["snapshot"]>,
  fsync: boolean,
): Promise<void> {
  const handle = await open(temporary, "w");
  try {
    let text = `{"version":1,"next":${JSON.stringify(copy.next)},"collections":[`;
    let count = 0;
    for (const [ci, c] of copy.collections.entries()) {
      text += `${ci === 0 ? "" : ","}{"resource":${JSON.stringify(c.resource)},"parents":${JSON.stringify(c.parents)},"items":[`;
      for (const [ii, [key, item]] of c.items.entries()) {
        text += `${ii === 0 ? "" : ","}[${JSON.stringify(key)},${writeJson(item)}]`;
        if (++count % ITEMS_PER_TURN === 0) {
          await handle.write(text);
          text = "";
          await new Promise((resolve) => setImmediate(resolve));
        }
      }
      text += "]}";
    }
    await handle.write(`${text}]}`);
    if (fsync) await handle.sync();
  } finally {
    await handle.close();
  }
}

/**
 * Replays a `--save` journal onto a store restored from its snapshot: the journal set aside by a fold
 * that did not finish (`FILE.journal.1`), then the current one; each line a change. A last line cut
 * short (a kill in mid-write) is ignored, a bad line before it stops the start, naming it. How many
 * changes were replayed.
 */
export function replayJournal(file: string, store: ResourceStore): number {
  return replayFile(`${file}.journal.1`, store) + replayFile(`${file}.journal`, store);
}

function replayFile(journalFile: string, store: ResourceStore): number {
  if (!existsSync(journalFile)) return 0;
  let text: string;
  try {
    text = readFileSync(journalFile, "utf8");
  } catch (error) {
    throw new KitError("PS_FILE_UNREADABLE", `--save ${journalFile}: ${(error as Error).message}`);
  }
  const lines = text.split("\n");
  // A text that ends in a newline has an empty last piece; one that does not was cut in mid-line.
  const torn = lines.pop();
  let replayed = 0;
  for (const [i, line] of lines.entries()) {
    const change = readExactJson(line)?.value;
    if (change === undefined || !store.apply(change))
      throw new KitError("PS_DATA_INVALID", `--save ${journalFile}: line ${i + 1} is not a change this mock wrote`);
    replayed++;
  }
  if (torn !== undefined && torn !== "") {
    const change = readExactJson(torn)?.value;
    if (change !== undefined && store.apply(change)) replayed++;
  }
  return replayed;
}

/** The text of a `--save` file from an earlier run, or undefined when there is none yet. */
export function savedText(file: string): string | undefined {
  if (!existsSync(file)) return undefined;
  try {
    return readFileSync(file, "utf8");
  } catch (error) {
    throw new KitError("PS_FILE_UNREADABLE", `--save ${file}: ${(error as Error).message}`);
  }
}

/** The text of a `--data FILE`. */
export function dataText(file: string): string {
  try {
    return readFileSync(file, "utf8");
  } catch (error) {
    throw new KitError("PS_FILE_UNREADABLE", `--data ${file}: ${(error as Error).message}`);
  }
}

/**
 * Runs tasks with bounded concurrency and hands results on in input order, so reports and events
 * never depend on which case happened to finish first.
 */
export async function runOrdered<T, R>(
  items: readonly T[],
  concurrency: number,
  task: (item: T, index: number) => Promise<R>,
  onResult: (result: R, index: number) => void,
): Promise<R[]> {
  const results: R[] = new Array(items.length);
  const done: boolean[] = new Array(items.length).fill(false);
  let nextToStart = 0;
  let nextToEmit = 0;
  const worker = async (): Promise<void> => {
    while (nextToStart < items.length) {
      const i = nextToStart++;
      results[i] = await task(items[i] as T, i);
      done[i] = true;
      while (nextToEmit < items.length && done[nextToEmit]) {
        onResult(results[nextToEmit] as R, nextToEmit);
        nextToEmit++;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, worker));
  return results;
}

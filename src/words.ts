/** A count with its noun: `1 case`, `2 cases`, `1 exchange`; the plural is the noun plus s unless given. */
export function count(n: number, singular: string, plural = `${singular}s`): string {
  return `${n} ${n === 1 ? singular : plural}`;
}

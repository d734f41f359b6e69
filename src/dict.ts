// Objects keyed by names that come from the wire (header names): with no inherited members, so a
// field named `__proto__` or `constructor` is an own member like any other.

/** The prototype of every dict: no members, no prototype of its own. */
function Dict(): void {}
Dict.prototype = Object.create(null) as object;

/**
 * An empty object with no inherited members. Unlike `Object.create(null)`, whose objects V8 keeps as
 * hash tables from the start, a dict is a fast object: the names added to it become properties of a
 * shape that dicts filled the same way share, as for an object literal.
 */
export function dict<T>(): Record<string, T> {
  return new (Dict as unknown as new () => Record<string, T>)();
}

import x from "y";

/** Adds. */
export function add(a, b) {
  const c = a + b;
  return c;
}

class Box {
  constructor(v) {
    this.v = v;
  }
  get() { return this.v; }
}

const twice = (f) => (x) => f(f(x));
module.exports = { add, Box };

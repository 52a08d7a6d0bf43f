// comment
export function f(a: number): number {
  return a;
}
export class C extends B {
  m(x) { return x; }
  static n = () => 1;
}
interface I { m(): void; }
type T = number;
enum E { A }
const g = (a) => {
  return a;
};
namespace N { export const z = 1; }
declare module "m" { }
abstract class D { abstract q(): void; }

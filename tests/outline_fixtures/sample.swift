/// doc
class C {
  func m(a: Int) -> Int { return a }
  init() {}
}
struct S {}
protocol P { func q() }
extension C {}
enum E { case a }
func f() {}
typealias A = Int

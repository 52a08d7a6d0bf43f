object O {
  def f(a: Int): Int = {
    a
  }
}
class C { def m = 1 }
trait T
case class K(a: Int)
type A = Int
val x = 1

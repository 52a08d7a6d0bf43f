object O {
  fun o() = 1
}
interface I {
  fun q()
}
typealias A = Int
enum class E { A }
fun f() {}
/** Doc of C. */
class C(val a: Int) {
    fun m(x: Int): Int {
        val y = x + a
        return y
    }
}

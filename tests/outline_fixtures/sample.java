/** Doc. */
public class C {
  @Override
  public int m(int a) { return a; }
  C() {}
  interface I { void q(); }
  enum E { A }
  record R(int a) {}
}

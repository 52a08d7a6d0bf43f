namespace N {
  /// doc
  public class C {
    public int M(int a) { return a; }
    public C() {}
    public int P { get; set; }
  }
  interface I { void Q(); }
  enum E { A }
  struct S {}
  record R(int A);
}

namespace ns {
class C : public B {
public:
  int m(int a) { return a; }
  void d();
  C();
};
}
void ns::C::d() {}
template <typename T> T id(T x) { return x; }
using U = int;
struct S { int a; };

#define X 1
#define F(a) (a)
struct S { int a; };
typedef struct { int b; } T;
enum E { A };
int *f(int a) {
  return 0;
}
int g(int);

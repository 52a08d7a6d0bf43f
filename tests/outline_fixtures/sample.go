package main
// F does.
func F(a int) int {
	return a
}
func (r *Recv) M() {}
type S struct { A int }
type I interface { M() }
type A = int
const C = 1
const ( D = 2; E = 3 )

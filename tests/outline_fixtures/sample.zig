/// doc
pub fn f(a: u32) u32 {
    return a;
}
const S = struct {
    a: u32,
    fn m(self: S) void {}
};
const E = enum { a };
test "t" {}

/// Doc for Foo.
#[derive(Debug)]
pub struct Foo { a: u32 }
impl Display for Foo {
    fn fmt(&self) -> u32 {
        1
    }
}
pub trait T { fn m(&self); }
mod inner { pub const X: u32 = 1; }
type A = u32;
macro_rules! mac { () => {} }
enum E { A, B }
static S: u8 = 0;

impl Foo {
    /// Makes one.
    pub fn new(a: u32) -> Foo {
        let b = a + 1;
        Foo { a: b }
    }
}

<?php
namespace N;
/** doc */
class C {
  public function m($a) { return $a; }
  const X = 1;
}
interface I { public function q(); }
trait T {}
enum E {}
function f() {}

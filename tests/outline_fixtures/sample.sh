# doc
f() {
  echo
}
function g { echo; }

/*
 * gnaw-grammars: the fill of a grammar's tables, included at the top of each rewritten
 * parser.c (build/rewrite.rs). The tables live in a zeroed buffer (BSS: no bytes in the
 * binary); the language function fills it once, on its first call, from the deflated bytes,
 * before it returns the language. No system call of its own: pthread_once with no contention
 * is a compare and a store, and the inflate works in memory, its few kilobytes of state from
 * the process's allocator (malloc, as a parse's). A fill that fails (allocator out of memory, or bytes that do not
 * inflate to exactly the buffer: a build bug) aborts, as tree-sitter's own allocator does when
 * it runs out.
 */
#ifndef GNAW_FILL_H
#define GNAW_FILL_H

#include <pthread.h>
#include <stdlib.h>

/* zlib's uncompress, implemented in safe Rust by zlib-rs (crate libz-rs-sys, feature
 * semver-prefix: the prefix names its 0.6 series, see Cargo.toml). Returns 0 on success. */
int LIBZ_RS_SYS_v0_6_x_uncompress(unsigned char *dest, unsigned long *dest_len,
                                  const unsigned char *source, unsigned long source_len);

static inline void gnaw_inflate(unsigned char *tables, unsigned long size,
                                const unsigned char *stored, unsigned long stored_len) {
  unsigned long len = size;
  if (LIBZ_RS_SYS_v0_6_x_uncompress(tables, &len, stored, stored_len) != 0 || len != size) {
    abort();
  }
}

/* Run fill once per process, whichever thread calls first; the others wait for it. */
#define GNAW_ONCE(fill)                                \
  do {                                                 \
    static pthread_once_t gnaw_once = PTHREAD_ONCE_INIT; \
    pthread_once(&gnaw_once, fill);                    \
  } while (0)

#endif

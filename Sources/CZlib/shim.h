#ifndef PUSHLOG_CZLIB_SHIM_H
#define PUSHLOG_CZLIB_SHIM_H
#include <zlib.h>

// inflateInit2 and deflateInit2 are macros that pass the version and struct size.
static inline int pushlog_inflate_init_gzip(z_streamp s) {
    return inflateInit2(s, 15 + 16);
}
static inline int pushlog_deflate_init_gzip(z_streamp s, int level) {
    return deflateInit2(s, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);
}
#endif

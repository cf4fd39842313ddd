#ifndef PUSHLOG_CSQLITE_SHIM_H
#define PUSHLOG_CSQLITE_SHIM_H
#include <sqlite3.h>

// SQLITE_STATIC / SQLITE_TRANSIENT are casts of integers to function pointers, which Swift cannot import.
static inline int pushlog_bind_text_static(sqlite3_stmt *s, int i, const char *p, int n) {
    return sqlite3_bind_text(s, i, p, n, SQLITE_STATIC);
}
static inline int pushlog_bind_text_transient(sqlite3_stmt *s, int i, const char *p, int n) {
    return sqlite3_bind_text(s, i, p, n, SQLITE_TRANSIENT);
}
static inline int pushlog_bind_blob_transient(sqlite3_stmt *s, int i, const void *p, int n) {
    return sqlite3_bind_blob(s, i, p, n, SQLITE_TRANSIENT);
}
static inline int pushlog_result_blob_transient(sqlite3_context *c, const void *p, int n) {
    sqlite3_result_blob(c, p, n, SQLITE_TRANSIENT);
    return 0;
}
static inline int pushlog_result_text_transient(sqlite3_context *c, const char *p, int n) {
    sqlite3_result_text(c, p, n, SQLITE_TRANSIENT);
    return 0;
}
// sqlite3_db_config is variadic.
static inline int pushlog_db_config_defensive(sqlite3 *db) {
    return sqlite3_db_config(db, SQLITE_DBCONFIG_DEFENSIVE, 1, (int *)0);
}
// sqlite3_config is variadic too. Memory statistics cost a global mutex on every allocation;
// pushlog never reads them. Must run before SQLite initializes (the first open).
static inline int pushlog_config_no_memstatus(void) {
    return sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
}
#endif

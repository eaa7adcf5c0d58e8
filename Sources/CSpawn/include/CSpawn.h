// glibc's posix_spawn_file_actions_addclosefrom_np (2.34 and later), which the Glibc module does not export: a
// spawned program gets none of the descriptors at or above `low`, closed in the child, so that none opened by
// another thread just before the spawn can slip through either. Defined in shim.c, which asks for _GNU_SOURCE
// (this header does not: it would make glibc's types differ from the Glibc module's).
#include <spawn.h>

/// 0 when the close was added; -1 where glibc has no close-from (then the caller closes what it finds).
int sluice_spawn_close_from(posix_spawn_file_actions_t *actions, int low);

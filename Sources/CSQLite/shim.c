// The C target needs one translation unit; the wrapper is static inline in CSQLite.h.
#include "CSQLite.h"

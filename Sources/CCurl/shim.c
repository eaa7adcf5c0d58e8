// The C target needs one translation unit; all wrappers are static inline in CCurl.h.
#include "CCurl.h"

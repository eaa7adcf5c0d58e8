// A C target needs a source file; everything used is declared in include/CMalloc.h.
#include "CMalloc.h"

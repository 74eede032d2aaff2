/* header_only.h — a translation unit that is just mpi.h (strict C11 / C++17 checks). */
#include <mpi.h>

/*
 * ofi — the libfabric transport's entry points besides its ops table
 * (skf_ofi_ops in core/transport.h); built only when libfabric is found.
 */
#ifndef SKIFF_TRANSPORTS_OFI_H
#define SKIFF_TRANSPORTS_OFI_H

#include <stddef.h>

/* The provider this process would use (SKIFF_OFI_PROVIDER or libfabric's
 * first), one line into out; 0, or a negative errno with the reason there. */
int skf_ofi_describe(char *out, size_t cap);
/* The provider the open channels use, or NULL before the first. */
const char *skf_ofi_provider(void);

#endif

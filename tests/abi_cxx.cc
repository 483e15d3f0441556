// abi_cxx.cc - the plugin header must compile as C++ too (engine ports are
// often C++). Built with -fsyntax-only by `make check`.
#include "pecert/plugin.h"

static_assert(sizeof(pecert_tensor) == 152, "same layout from C++");

extern "C" const pecert_plugin *pecert_plugin_entry(uint32_t host_abi_version)
{
    return host_abi_version == PECERT_ABI_VERSION ? nullptr : nullptr;
}

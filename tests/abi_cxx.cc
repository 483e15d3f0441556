// abi_cxx.cc - the plugin header and the wire protocol's must compile as
// C++ too (engine ports and engine hosts are often C++). Built with
// -fsyntax-only by `make check`.
#include "pecert/plugin.h"
#include "pecert/wire.h"

static_assert(sizeof(pecert_tensor) == 152, "same layout from C++");
static_assert(sizeof(pecert_wire_hello) == 96, "same wire layout from C++");
static_assert(sizeof(pecert_wire_call) == 48, "same wire layout from C++");

extern "C" const pecert_plugin *pecert_plugin_entry(uint32_t host_abi_version)
{
    return host_abi_version == PECERT_ABI_VERSION ? nullptr : nullptr;
}

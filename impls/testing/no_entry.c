/* no_entry.c - a shared object that is not a pecert plugin. */
#include "pecert/plugin.h"

PECERT_EXPORT int not_a_plugin(void);
int not_a_plugin(void)
{
    return 0;
}

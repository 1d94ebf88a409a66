// ptosim C++ front end: the prefetch helpers only affect caches; nothing to record.
#pragma once
#include "ptosim_shim/pto.hpp"

// ptosim C++ front end: stands in for the PTO public header. Own code, no vendor code.
#pragma once
#include "ptosim_shim/pto.hpp"

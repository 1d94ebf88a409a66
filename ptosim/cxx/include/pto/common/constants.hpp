// ptosim C++ front end: every public PTO header maps onto the one shim header.
#pragma once
#include "ptosim_shim/pto.hpp"

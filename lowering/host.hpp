// The host backend: every pipeline, run serially.
#pragma once
#include "lowering/host/gemm.hpp"
#include "lowering/host/relayout.hpp"
#include "lowering/host/row_reduce.hpp"
#include "lowering/host/window_reduce.hpp"

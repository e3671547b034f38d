// All coordinate transforms.
#pragma once
#include "dsl/transform/embed.hpp"
#include "dsl/transform/freeze.hpp"
#include "dsl/transform/merge.hpp"
#include "dsl/transform/offset.hpp"
#include "dsl/transform/pad.hpp"
#include "dsl/transform/pass_through.hpp"
#include "dsl/transform/replicate.hpp"
#include "dsl/transform/slice.hpp"
#include "dsl/transform/unmerge.hpp"
#include "dsl/transform/xor_swizzle.hpp"

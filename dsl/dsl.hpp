// The whole DSL: numbers, descriptors, transforms, coordinates and the named compositions.
#pragma once
#include "dsl/compose/col2im.hpp"
#include "dsl/compose/group_dims.hpp"
#include "dsl/compose/im2col.hpp"
#include "dsl/compose/window.hpp"
#include "dsl/coordinate.hpp"
#include "dsl/descriptor.hpp"
#include "dsl/transforms.hpp"

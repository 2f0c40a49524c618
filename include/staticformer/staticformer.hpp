// staticformer: umbrella header. A compile-time, allocation-free Transformer encoder.
#pragma once

#include "blob.hpp"
#include "config.hpp"
#include "encoder.hpp"
#include "math/fp16.hpp"
#include "model.hpp"
#include "parallel.hpp"
#include "status.hpp"
#include "weights.hpp"

#define STATICFORMER_VERSION_MAJOR 0
#define STATICFORMER_VERSION_MINOR 1
#define STATICFORMER_VERSION_PATCH 0

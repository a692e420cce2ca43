// Backend selection: cpu | cuda | auto (registry.cpp).
#pragma once

#include <memory>

#include "core/backend.hpp"

namespace vif {

std::unique_ptr<Backend> create_backend(const Params& params, VifBackend kind, Status* err);

} // namespace vif

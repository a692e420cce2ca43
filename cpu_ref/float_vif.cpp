// The reference float scorer: the body lives in float_vif_impl.hpp, which cpu_fast/ also compiles
// once per instruction-set level.
#define VIF_SCORER_NS vif::cpu_ref
#include "float_vif_impl.hpp"

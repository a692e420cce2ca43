// The float scorer of one instruction-set level: the reference's own body (cpu_ref/
// float_vif_impl.hpp), whose plain loops vectorise as they are, in the namespace
// VIF_SCORER_NS = vif::cpu_fast::<level> that CMakeLists.txt sets with the level's flags.
#include "cpu_ref/float_vif_impl.hpp"

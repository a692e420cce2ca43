/* Calls with enum arguments that hold any int, as a C caller may make them. In C that is
 * defined (an enum argument is an int); C++ code that loaded such a value as the enum type
 * would itself be undefined (UBSan: invalid enum load), so fuzz_api.cpp goes through here. */
#include "vif/vif.h"

VifStatus fuzz_metric_name(const VifConfig *cfg, int metric, char *buf, size_t size) {
    return vif_metric_name(cfg, (VifMetric)metric, buf, size);
}

double fuzz_metric_value(const VifScores *scores, int metric) {
    return vif_metric_value(scores, (VifMetric)metric);
}

VifStatus fuzz_pool(const double *values, size_t n, int method, double param, double *result) {
    return vif_pool(values, n, (VifPoolMethod)method, param, result);
}

const char *fuzz_status_string(int status) {
    return vif_status_string((VifStatus)status);
}

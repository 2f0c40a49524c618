/* The generated C API headers compile as strict C99 (built with -std=c99 -pedantic -Werror). */
#include "cmodel_a16w8.h"
#include "cmodel_f16.h"
#include "cmodel_f32.h"
#include "cmodel_int8.h"

int c_classifier_c99_probe(void) {
    return CMODEL_F32_CLASSES + CMODEL_F16_CLASSES + CMODEL_INT8_CLASSES + CMODEL_A16W8_CLASSES;
}

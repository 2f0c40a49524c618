// The Cortex-M kernel sets of this build, for the kernel tests: f(tag, name) for each (on a
// Cortex-M55 both cortex_m_mve, the default, and cortex_m_dsp; without the DSP extension the
// reference); true if every call was.
#pragma once

#include <staticformer/staticformer.hpp>

template <class F>
bool each_cortex_m_backend(F f) {
    namespace sf = staticformer;
    bool ok = true;
#if STATICFORMER_HAS_CORTEX_M_MVE
    ok = f(sf::cortex_m_mve{}, "cortex_m_mve") && ok;
#endif
#if STATICFORMER_HAS_CORTEX_M_DSP
    ok = f(sf::cortex_m_dsp{}, "cortex_m_dsp") && ok;
#else
    ok = f(sf::reference{}, "reference") && ok;
#endif
    return ok;
}

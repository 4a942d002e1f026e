//! Library-wide settings of oneDNN's C API: the CPU ISA cap and ISA hints, the default fpmath
//! mode, and the JIT dump / profiling switches (accepted and recorded: this library generates
//! no code at run time, so there is nothing to dump or to announce to a profiler).

use super::boundary::{status, value, write_out};
use super::types::*;
use crate::error::Error;
use crate::kernels::cpu_isa;
use crate::types::{CEnum, FpmathMode};
use libc::{c_char, c_int, c_uint};
use std::sync::OnceLock;

/// Every value of `dnnl_cpu_isa_t`.
const CPU_ISAS: [dnnl_cpu_isa_t; 15] = [
    dnnl_cpu_isa_default,
    dnnl_cpu_isa_sse41,
    dnnl_cpu_isa_avx,
    dnnl_cpu_isa_avx2,
    dnnl_cpu_isa_avx2_vnni,
    dnnl_cpu_isa_avx2_vnni_2,
    dnnl_cpu_isa_avx512_core,
    dnnl_cpu_isa_avx512_core_vnni,
    dnnl_cpu_isa_avx512_core_bf16,
    dnnl_cpu_isa_avx10_1_512,
    dnnl_cpu_isa_avx10_1_512_amx,
    dnnl_cpu_isa_avx10_1_512_amx_fp16,
    dnnl_cpu_isa_avx10_2,
    dnnl_cpu_isa_avx10_2_amx_2,
    dnnl_cpu_isa_avx10_2_512_amx_2,
];

/// The features a cap value allows (`dnnl_cpu_isa_default`: all).
fn cap_of(isa: dnnl_cpu_isa_t) -> u32 {
    if isa == dnnl_cpu_isa_default {
        cpu_isa::ALL
    } else {
        isa as u32
    }
}

/// Caps the instruction set the library uses. As in oneDNN, only the first call made before
/// the kernels (or `dnnl_get_effective_cpu_isa`) first ran succeeds; later calls and unknown
/// values → `dnnl_invalid_arguments`.
#[unsafe(no_mangle)]
pub extern "C" fn dnnl_set_max_cpu_isa(isa: dnnl_cpu_isa_t) -> dnnl_status_t {
    status("dnnl_set_max_cpu_isa", || {
        if !CPU_ISAS.contains(&isa) {
            crate::invalid!("unknown CPU ISA {isa:#x}");
        }
        if !cpu_isa::set_cap(cap_of(isa)) {
            crate::invalid!("the CPU ISA can be set only once, before the library first used it");
        }
        Ok(())
    })
}

/// The best ISA this CPU has within the cap, as oneDNN reports it (fixes the cap:
/// `dnnl_set_max_cpu_isa` fails afterwards).
#[unsafe(no_mangle)]
pub extern "C" fn dnnl_get_effective_cpu_isa() -> dnnl_cpu_isa_t {
    value("dnnl_get_effective_cpu_isa", dnnl_cpu_isa_sse41, || {
        Ok(cpu_isa::effective() as dnnl_cpu_isa_t)
    })
}

/// The ISA hints: set once by `dnnl_set_cpu_isa_hints`, else fixed when first read, from
/// `ONEDNN_CPU_ISA_HINTS` (`NO_HINTS` or `PREFER_YMM`, any case; else no hints).
static ISA_HINTS: OnceLock<dnnl_cpu_isa_hints_t> = OnceLock::new();

/// Sets the ISA hints (recorded; our kernels choose their vector width themselves). As in
/// oneDNN, any value is taken, once, before the hints were first read; later →
/// `dnnl_runtime_error`.
#[unsafe(no_mangle)]
pub extern "C" fn dnnl_set_cpu_isa_hints(isa_hints: dnnl_cpu_isa_hints_t) -> dnnl_status_t {
    status("dnnl_set_cpu_isa_hints", || {
        ISA_HINTS.set(isa_hints).map_err(|_| {
            Error::Runtime("the CPU ISA hints can be set only once, before first use".into())
        })
    })
}

/// The ISA hints (fixes them: `dnnl_set_cpu_isa_hints` fails afterwards).
#[unsafe(no_mangle)]
pub extern "C" fn dnnl_get_cpu_isa_hints() -> dnnl_cpu_isa_hints_t {
    value("dnnl_get_cpu_isa_hints", dnnl_cpu_isa_no_hints, || {
        Ok(*ISA_HINTS.get_or_init(|| {
            use crate::environment::{named, onednn};
            let names = [
                ("no_hints", dnnl_cpu_isa_no_hints),
                ("prefer_ymm", dnnl_cpu_isa_prefer_ymm),
            ];
            named(onednn("CPU_ISA_HINTS"), &names).unwrap_or(dnnl_cpu_isa_no_hints)
        }))
    })
}

/// Sets the fpmath mode attributes start with; an unknown mode → `dnnl_invalid_arguments`.
#[unsafe(no_mangle)]
pub extern "C" fn dnnl_set_default_fpmath_mode(mode: dnnl_fpmath_mode_t) -> dnnl_status_t {
    status("dnnl_set_default_fpmath_mode", || {
        FpmathMode::set_default(FpmathMode::parse(mode)?);
        Ok(())
    })
}

/// The fpmath mode attributes start with (strict unless changed).
///
/// # Safety
/// `mode` is NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_get_default_fpmath_mode(
    mode: *mut dnnl_fpmath_mode_t,
) -> dnnl_status_t {
    status("dnnl_get_default_fpmath_mode", || {
        write_out(mode, "mode", FpmathMode::default().raw())
    })
}

/// Turns the JIT code dump on or off: accepted (no code is generated at run time).
#[unsafe(no_mangle)]
pub extern "C" fn dnnl_set_jit_dump(enable: c_int) -> dnnl_status_t {
    status("dnnl_set_jit_dump", || {
        let _ = enable;
        Ok(())
    })
}

/// `DNNL_JIT_PROFILE_*` bits oneDNN accepts (VTune, Linux perf map, jitdump, timestamps).
const JIT_PROFILE_FLAGS: c_uint = 0x1 | 0x2 | 0x4 | 0x8;

/// Sets the JIT profiler flags: accepted when they are oneDNN's known bits (no code is
/// generated at run time); other bits → `dnnl_invalid_arguments`.
#[unsafe(no_mangle)]
pub extern "C" fn dnnl_set_jit_profiling_flags(flags: c_uint) -> dnnl_status_t {
    status("dnnl_set_jit_profiling_flags", || {
        if flags & !JIT_PROFILE_FLAGS != 0 {
            crate::invalid!("unknown JIT profiling flags {flags:#x}");
        }
        Ok(())
    })
}

/// Sets the jitdump directory: accepted, NULL included (nothing is ever dumped).
#[unsafe(no_mangle)]
pub extern "C" fn dnnl_set_jit_profiling_jitdumpdir(dir: *const c_char) -> dnnl_status_t {
    status("dnnl_set_jit_profiling_jitdumpdir", || {
        let _ = dir;
        Ok(())
    })
}

/// Whether verbose profiling (timing of GPU kernels) is on: always 0.
///
/// # Safety
/// `enabled` is NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_verbose_profiling_enabled(enabled: *mut c_int) -> dnnl_status_t {
    status("dnnl_verbose_profiling_enabled", || {
        write_out(enabled, "enabled", 0)
    })
}

/// Bytes of one element of a data type, as oneDNN answers for every type it knows (its
/// sub-byte types count 1); `(size_t)-1` for an unknown value.
#[unsafe(no_mangle)]
pub extern "C" fn dnnl_data_type_size(data_type: dnnl_data_type_t) -> usize {
    value("dnnl_data_type_size", usize::MAX, || match data_type {
        1 | 2 => Ok(2),
        3 | 4 => Ok(4),
        5 | 6 | 8..=15 => Ok(1),
        7 | 16 => Ok(8),
        _ => crate::invalid!("unknown data type {data_type}"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernels::Isa;

    /// Every oneDNN cap maps onto the best of our kernel levels it includes: the AMX ones onto
    /// AMX (`avx512_core_amx` and what extends it), AVX-512 without AMX onto AVX-512, and so on.
    #[test]
    fn caps_map_onto_the_kernel_levels() {
        let expect = [
            (dnnl_cpu_isa_default, Isa::Amx),
            (dnnl_cpu_isa_avx512_core_amx, Isa::Amx),
            (dnnl_cpu_isa_avx10_1_512_amx_fp16, Isa::Amx),
            (dnnl_cpu_isa_avx10_2_amx_2, Isa::Amx),
            (dnnl_cpu_isa_avx512_core, Isa::Avx512),
            (dnnl_cpu_isa_avx512_core_vnni, Isa::Avx512),
            (dnnl_cpu_isa_avx512_core_bf16, Isa::Avx512),
            (dnnl_cpu_isa_avx10_1_512, Isa::Avx512),
            (dnnl_cpu_isa_avx10_2, Isa::Avx512),
            (dnnl_cpu_isa_avx2, Isa::Avx2),
            (dnnl_cpu_isa_avx2_vnni_2, Isa::Avx2),
            (dnnl_cpu_isa_avx, Isa::Portable),
            (dnnl_cpu_isa_sse41, Isa::Portable),
        ];
        for (v, isa) in expect {
            assert_eq!(Isa::within(cap_of(v)), isa, "{v:#x}");
        }
    }
}

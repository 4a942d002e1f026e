//! oneDNN's CPU ISA values (`dnnl_cpu_isa_t`) as what they are, sets of instruction-set
//! features (each value has the bits of every feature it includes), against this CPU: what it
//! offers, the cap a program sets (`dnnl_set_max_cpu_isa`, else the variable
//! `ONEDNN_MAX_CPU_ISA`), and the best value within both (`dnnl_get_effective_cpu_isa`). The
//! kernels ask [`has`] before they use an extension (VNNI, BF16, AMX), so that under a cap
//! they run what oneDNN would; [`super::Isa::detected`] derives their level from it.

use std::sync::OnceLock;

/// SSE4.1.
pub const SSE41: u32 = 0x1;
/// AVX.
pub const AVX: u32 = 0x2;
/// AVX2 (with FMA).
pub const AVX2: u32 = 0x4;
/// AVX-VNNI (`vpdpbusd` on ymm).
pub const AVX_VNNI: u32 = 0x8;
/// AVX-VNNI-INT8 and AVX-NE-CONVERT.
pub const AVX2_VNNI_2: u32 = 0x10;
/// AVX-512 F, BW, DQ, VL.
pub const AVX512_CORE: u32 = 0x20;
/// AVX512-VNNI.
pub const AVX512_VNNI: u32 = 0x40;
/// AVX512-BF16.
pub const AVX512_BF16: u32 = 0x80;
/// AVX512-FP16.
pub const AVX512_FP16: u32 = 0x100;
/// AMX tiles with AMX-INT8 and AMX-BF16 (the OS permitting).
pub const AMX: u32 = 0xe00;
/// AMX-FP16.
pub const AMX_FP16: u32 = 0x1000;
/// No cap: every feature (`dnnl_cpu_isa_default` as a cap, `ONEDNN_MAX_CPU_ISA=ALL`).
pub const ALL: u32 = u32::MAX;

/// oneDNN's values by name (the `dnnl_cpu_isa_` enumerator without its prefix, aliases
/// included), best first. The AVX10.2 ones have feature bits this library does not detect:
/// they cap, but are never effective.
pub const VALUES: [(&str, u32); 18] = [
    ("avx10_2_512_amx_2", 0x22fff),
    ("avx10_2_amx_2", 0x22fff),
    ("avx10_2_512", 0x201ff),
    ("avx10_2", 0x201ff),
    ("avx10_1_512_amx_fp16", 0x1fef),
    ("avx512_core_amx_fp16", 0x1fef),
    ("avx10_1_512_amx", 0xfef),
    ("avx512_core_amx", 0xfef),
    ("avx10_1_512", 0x1ef),
    ("avx512_core_fp16", 0x1ef),
    ("avx512_core_bf16", 0xe7),
    ("avx512_core_vnni", 0x67),
    ("avx512_core", 0x27),
    ("avx2_vnni_2", 0x1f),
    ("avx2_vnni", 0xf),
    ("avx2", 0x7),
    ("avx", 0x3),
    ("sse41", 0x1),
];

/// The cap: set by [`set_cap`], else read from the environment at first use.
static CAP: OnceLock<u32> = OnceLock::new();

/// Caps the features the kernels use to those of `value` (a value of [`VALUES`], or [`ALL`]):
/// only once, and only before the kernels (or [`effective`]) first ran. Whether it was taken.
pub fn set_cap(value: u32) -> bool {
    CAP.set(value).is_ok()
}

/// The cap: oneDNN's ([`set_cap`]'s, else `ONEDNN_MAX_CPU_ISA`'s, `DNNL_MAX_CPU_ISA`'s: a
/// name of [`VALUES`], any case; `ALL`, `DEFAULT`, an unknown name or none: no cap), within
/// this library's own (`OXIDNN_ISA` set to a name of [`VALUES`] other than the names of the
/// kernel levels, which cap the levels alone: a cap on this library only, for tests that run
/// oneDNN beside it); fixed once read.
pub fn cap() -> u32 {
    use crate::environment::{named, onednn};
    static OWN: OnceLock<u32> = OnceLock::new();
    let onednn = *CAP.get_or_init(|| named(onednn("MAX_CPU_ISA"), &VALUES).unwrap_or(ALL));
    let own = *OWN.get_or_init(|| {
        let name = std::env::var(super::isa::ISA_ENV).ok();
        let value = name.filter(|n| super::Isa::named(n).is_none());
        named(value, &VALUES).unwrap_or(ALL)
    });
    onednn & own
}

/// Whether this CPU has every feature of `bits` and the cap allows them.
pub fn has(bits: u32) -> bool {
    static ALLOWED: OnceLock<u32> = OnceLock::new();
    let allowed = *ALLOWED.get_or_init(|| {
        let cap = cap();
        offered(cap & AMX == AMX) & cap
    });
    allowed & bits == bits
}

/// The best of oneDNN's values whose features this CPU has and the cap allows (SSE4.1 when
/// none is).
pub fn effective() -> u32 {
    VALUES
        .iter()
        .map(|&(_, v)| v)
        .find(|&v| has(v))
        .unwrap_or(SSE41)
}

/// The features this CPU and its OS offer; AMX (whose permission changes how Linux sizes the
/// process's signal frames) asked for only with `amx`.
fn offered(amx: bool) -> u32 {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::is_x86_feature_detected as has;
        use std::arch::x86_64::__cpuid_count;
        // CPUID leaf 7, sub-leaf 1 (0 where the CPU has no such sub-leaf).
        let leaf7_1 = if __cpuid_count(0, 0).eax >= 7 && __cpuid_count(7, 0).eax >= 1 {
            __cpuid_count(7, 1)
        } else {
            std::arch::x86_64::CpuidResult {
                eax: 0,
                ebx: 0,
                ecx: 0,
                edx: 0,
            }
        };
        let bit = |r: u32, b: u32| r >> b & 1 == 1;
        let features = [
            (SSE41, has!("sse4.1")),
            (AVX, has!("avx")),
            (AVX2, has!("avx2") && has!("fma")),
            (AVX_VNNI, has!("avxvnni")),
            // AVX-VNNI-INT8 (EDX bit 4), AVX-NE-CONVERT (EDX bit 5)
            (AVX2_VNNI_2, bit(leaf7_1.edx, 4) && bit(leaf7_1.edx, 5)),
            (
                AVX512_CORE,
                has!("avx512f") && has!("avx512bw") && has!("avx512dq") && has!("avx512vl"),
            ),
            (AVX512_VNNI, has!("avx512vnni")),
            (AVX512_BF16, has!("avx512bf16")),
            (AVX512_FP16, has!("avx512fp16")),
            (AMX, amx && super::amx::int8() && super::amx::bf16()),
            // AMX-FP16: EAX bit 21
            (
                AMX_FP16,
                amx && super::amx::available() && bit(leaf7_1.eax, 21),
            ),
        ];
        features
            .iter()
            .filter(|(_, on)| *on)
            .fold(0, |bits, (f, _)| bits | f)
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = amx;
        0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The names and values are oneDNN's enumerators, and the features add up to them along
    /// oneDNN's two lines of ISAs (AVX2 and its VNNI extensions; AVX-512 and what extends it).
    #[test]
    fn values_are_onednns() {
        use crate::capi::onednn_names::*;
        let theirs = [
            ("avx10_2_512_amx_2", dnnl_cpu_isa_avx10_2_512_amx_2),
            ("avx10_2_amx_2", dnnl_cpu_isa_avx10_2_amx_2),
            ("avx10_2_512", dnnl_cpu_isa_avx10_2_512),
            ("avx10_2", dnnl_cpu_isa_avx10_2),
            ("avx10_1_512_amx_fp16", dnnl_cpu_isa_avx10_1_512_amx_fp16),
            ("avx512_core_amx_fp16", dnnl_cpu_isa_avx512_core_amx_fp16),
            ("avx10_1_512_amx", dnnl_cpu_isa_avx10_1_512_amx),
            ("avx512_core_amx", dnnl_cpu_isa_avx512_core_amx),
            ("avx10_1_512", dnnl_cpu_isa_avx10_1_512),
            ("avx512_core_fp16", dnnl_cpu_isa_avx512_core_fp16),
            ("avx512_core_bf16", dnnl_cpu_isa_avx512_core_bf16),
            ("avx512_core_vnni", dnnl_cpu_isa_avx512_core_vnni),
            ("avx512_core", dnnl_cpu_isa_avx512_core),
            ("avx2_vnni_2", dnnl_cpu_isa_avx2_vnni_2),
            ("avx2_vnni", dnnl_cpu_isa_avx2_vnni),
            ("avx2", dnnl_cpu_isa_avx2),
            ("avx", dnnl_cpu_isa_avx),
            ("sse41", dnnl_cpu_isa_sse41),
        ];
        for ((name, v), (their_name, theirs)) in VALUES.iter().zip(theirs) {
            assert_eq!((*name, *v), (their_name, theirs as u32));
        }
        let avx512: &[u32] = &[
            SSE41 | AVX | AVX2,
            AVX512_CORE,
            AVX512_VNNI,
            AVX512_BF16,
            AVX_VNNI | AVX512_FP16,
            AMX,
            AMX_FP16,
        ];
        for chain in [&[SSE41, AVX, AVX2, AVX_VNNI, AVX2_VNNI_2], avx512] {
            let mut bits = 0;
            for &f in chain {
                bits |= f;
                assert!(VALUES.iter().any(|&(_, v)| v == bits), "{bits:#x}");
            }
        }
    }

    /// What the CPU offers includes what the kernels' levels assume.
    #[test]
    fn offered_features_agree_with_the_levels() {
        let bits = offered(false);
        let supported = crate::kernels::Isa::all_supported();
        assert_eq!(
            bits & AVX512_CORE != 0,
            supported.contains(&crate::kernels::Isa::Avx512),
            "{bits:#x}"
        );
        assert_eq!(
            bits & AVX2 != 0,
            supported.contains(&crate::kernels::Isa::Avx2)
        );
    }
}

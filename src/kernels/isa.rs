//! Run-time choice of the instruction set the kernels use.
//!
//! Kernels are written once, as plain Rust over fixed-size arrays, and compiled three times:
//! with `avx512f,fma`, with `avx2,fma`, and for the baseline target. [`Isa::detected`] picks the
//! best one the CPU supports; `OXIDNN_ISA=avx512|avx2|portable` caps it (for testing and
//! comparisons), as does oneDNN's CPU ISA cap ([`cpu_isa`], which also decides the extensions
//! within a level). Above AVX-512, [`Isa::Amx`] adds the AMX tile kernels of the int8 and bf16
//! GEMMs (the vector kernels stay the AVX-512 ones).

use super::cpu_isa;
use std::sync::OnceLock;

/// Environment variable capping the instruction set: to one of this library's levels (`amx`,
/// `avx512`, `avx2` or `portable`), or, named as oneDNN's (`avx512_core`, ...), to its
/// features ([`cpu_isa::cap`]).
pub const ISA_ENV: &str = "OXIDNN_ISA";

/// Whether the CPU is Intel's (CPUID vendor `GenuineIntel`), for the few tuning choices whose
/// best value was measured to differ between Intel and AMD cores; decided once.
pub fn intel_cpu() -> bool {
    static INTEL: OnceLock<bool> = OnceLock::new();
    *INTEL.get_or_init(|| {
        #[cfg(target_arch = "x86_64")]
        {
            // Leaf 0: the vendor string, in EBX, EDX, ECX.
            let r = std::arch::x86_64::__cpuid(0);
            [r.ebx, r.edx, r.ecx] == [0x756e_6547, 0x4965_6e69, 0x6c65_746e]
        }
        #[cfg(not(target_arch = "x86_64"))]
        false
    })
}

/// Bytes of one core's L2 cache, from CPUID, or `fallback` when the CPU does not say; decided
/// once. The deterministic cache leaves (Intel's leaf 4, AMD's `0x8000_001D`) come first, as
/// Linux reads them: hypervisors may leave leaf `0x8000_0006` at a default that disagrees (seen:
/// 256 KiB there on a 1 MiB-L2 Xeon).
pub fn l2_cache_bytes(fallback: usize) -> usize {
    static L2: OnceLock<usize> = OnceLock::new();
    let bytes = *L2.get_or_init(|| {
        #[cfg(target_arch = "x86_64")]
        {
            use std::arch::x86_64::__cpuid;
            let leaf = if intel_cpu() { 4 } else { 0x8000_001D };
            let highest = __cpuid(leaf & 0x8000_0000).eax;
            if highest >= leaf {
                if let Some(bytes) = deterministic_l2_bytes(leaf) {
                    return bytes;
                }
            }
            // ECX[31:16] of 0x8000_0006: the L2 size in KiB.
            if __cpuid(0x8000_0000).eax >= 0x8000_0006 {
                return ((__cpuid(0x8000_0006).ecx >> 16) as usize) << 10;
            }
            0
        }
        #[cfg(not(target_arch = "x86_64"))]
        0
    });
    if bytes == 0 {
        fallback
    } else {
        bytes
    }
}

/// The size of the level-2 data or unified cache a deterministic cache leaf (`leaf`'s
/// sub-leaves in leaf 4's format) describes: ways × partitions × line bytes × sets.
#[cfg(target_arch = "x86_64")]
fn deterministic_l2_bytes(leaf: u32) -> Option<usize> {
    use std::arch::x86_64::__cpuid_count;
    for sub in 0..16 {
        let r = __cpuid_count(leaf, sub);
        let kind = r.eax & 0x1f; // 0: no more caches; 1 data, 2 instruction, 3 unified
        if kind == 0 {
            break;
        }
        if (r.eax >> 5) & 7 == 2 && kind != 2 {
            let field =
                |v: u32, shift: u32, bits: u32| ((v >> shift) & ((1 << bits) - 1)) as usize + 1;
            let bytes = field(r.ebx, 22, 10)
                * field(r.ebx, 12, 10)
                * field(r.ebx, 0, 12)
                * (r.ecx as usize + 1);
            return Some(bytes);
        }
    }
    None
}

/// An instruction set the kernels are compiled for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Isa {
    /// Baseline target, no assumption beyond it.
    Portable,
    /// AVX2 with FMA.
    Avx2,
    /// AVX-512 (foundation) with FMA (and, where the CPU has them, VNNI and BF16).
    Avx512,
    /// AVX-512 and Intel AMX tiles (usable: see `kernels::amx::available`).
    Amx,
}

impl Isa {
    /// The best instruction set this CPU supports, capped by `OXIDNN_ISA` and by oneDNN's CPU
    /// ISA cap ([`cpu_isa::cap`]: AMX tiles, AVX-512 core or AVX2 where it includes them);
    /// decided once.
    pub fn detected() -> Isa {
        static ISA: OnceLock<Isa> = OnceLock::new();
        *ISA.get_or_init(|| {
            let env = std::env::var(ISA_ENV).ok();
            let env = env.as_deref().and_then(Isa::named).unwrap_or(Isa::Amx);
            Self::supported_up_to(env.min(Isa::within(cpu_isa::cap())))
                .into_iter()
                .max()
                .unwrap_or(Isa::Portable)
        })
    }

    /// The best level whose features the oneDNN CPU ISA cap `cap` includes (a
    /// [`cpu_isa::VALUES`] value or [`cpu_isa::ALL`]): AMX with the AMX tiles and AVX-512
    /// core, AVX-512 with AVX-512 core, AVX2 with AVX2.
    pub fn within(cap: u32) -> Isa {
        let includes = |bits: u32| cap & bits == bits;
        if includes(cpu_isa::AMX | cpu_isa::AVX512_CORE) {
            Isa::Amx
        } else if includes(cpu_isa::AVX512_CORE) {
            Isa::Avx512
        } else if includes(cpu_isa::AVX2) {
            Isa::Avx2
        } else {
            Isa::Portable
        }
    }

    /// Every instruction set this CPU can run, portable first.
    pub fn all_supported() -> Vec<Isa> {
        Self::supported_up_to(Isa::Amx)
    }

    /// Every instruction set up to `cap` this CPU can run, portable first (AMX is asked of the
    /// OS only when `cap` includes it: the permission makes Linux require larger signal
    /// stacks of the whole process).
    fn supported_up_to(cap: Isa) -> Vec<Isa> {
        let mut v = vec![Isa::Portable];
        #[cfg(target_arch = "x86_64")]
        {
            if is_x86_feature_detected!("avx2") && is_x86_feature_detected!("fma") {
                v.push(Isa::Avx2);
            }
            if is_x86_feature_detected!("avx512f") && is_x86_feature_detected!("fma") {
                v.push(Isa::Avx512);
                if cap >= Isa::Amx && super::amx::available() {
                    v.push(Isa::Amx);
                }
            }
        }
        v.retain(|&i| i <= cap);
        v
    }

    /// `self` when this CPU runs it, else the portable code (CPUID read once).
    pub fn or_portable(self) -> Isa {
        static SUPPORTED: OnceLock<Vec<Isa>> = OnceLock::new();
        if SUPPORTED.get_or_init(Self::all_supported).contains(&self) {
            self
        } else {
            Isa::Portable
        }
    }

    /// The instruction set of the vector (non-tile) kernels: AVX-512 under [`Isa::Amx`].
    pub fn vector(self) -> Isa {
        self.min(Isa::Avx512)
    }

    /// The level named `name` (its [`Isa::name`]), if any.
    pub fn named(name: &str) -> Option<Isa> {
        [Isa::Portable, Isa::Avx2, Isa::Avx512, Isa::Amx]
            .into_iter()
            .find(|l| l.name() == name)
    }

    /// Short name, as used in implementation names (`amx`, `avx512`, `avx2`, `portable`).
    pub fn name(self) -> &'static str {
        match self {
            Isa::Portable => "portable",
            Isa::Avx2 => "avx2",
            Isa::Avx512 => "avx512",
            Isa::Amx => "amx",
        }
    }
}

/// Defines `$name(isa, args…)` that runs the `#[inline(always)]` function `$body::<FMA>(args…)`
/// compiled for the given instruction set (`FMA` = true on AVX2/AVX-512, false on the portable
/// path; AMX runs the AVX-512 code); one wrapper per instruction set is generated, each with
/// its `#[target_feature]`.
/// (`@with [A] [B] [C]`: the generic arguments for AVX-512, AVX2 and portable, for
/// [`vector_dispatch`].)
macro_rules! isa_dispatch {
    ($(#[$m:meta])* $vis:vis unsafe fn $name:ident => $body:ident, $args:tt) => {
        $crate::kernels::isa::isa_dispatch!(
            @with [true] [true] [false] $(#[$m])* $vis unsafe fn $name => $body, $args
        );
    };
    (@with [$($g512:tt)*] [$($g2:tt)*] [$($gp:tt)*] $(#[$m:meta])* $vis:vis unsafe fn
        $name:ident => $body:ident, ($($arg:ident : $ty:ty),* $(,)?)) => {
        $(#[$m])*
        ///
        /// # Safety
        /// Same contract as the function it dispatches to; `isa` must be supported by the CPU.
        #[allow(clippy::too_many_arguments)]
        $vis unsafe fn $name(isa: $crate::kernels::Isa, $($arg: $ty),*) {
            #[cfg(target_arch = "x86_64")]
            #[target_feature(enable = "avx512f,fma")]
            #[allow(clippy::too_many_arguments)]
            unsafe fn avx512($($arg: $ty),*) { unsafe { $body::<$($g512)*>($($arg),*) } }
            #[cfg(target_arch = "x86_64")]
            #[target_feature(enable = "avx2,fma")]
            #[allow(clippy::too_many_arguments)]
            unsafe fn avx2($($arg: $ty),*) { unsafe { $body::<$($g2)*>($($arg),*) } }
            match isa {
                #[cfg(target_arch = "x86_64")]
                $crate::kernels::Isa::Avx512 | $crate::kernels::Isa::Amx => unsafe {
                    avx512($($arg),*)
                },
                #[cfg(target_arch = "x86_64")]
                $crate::kernels::Isa::Avx2 => unsafe { avx2($($arg),*) },
                _ => unsafe { $body::<$($gp)*>($($arg),*) },
            }
        }
    };
}

/// Like [`isa_dispatch`], but runs `$body::<V>(args…)` over a [`Vector`] type per instruction
/// set: `__m512` registers with AVX-512, `__m256` registers with AVX2; on the portable path
/// [`Scalar`] lanes, for loops the compiler vectorizes.
///
/// [`Vector`]: crate::kernels::vector::Vector
/// [`Scalar`]: crate::kernels::vector::Scalar
macro_rules! vector_dispatch {
    ($(#[$m:meta])* $vis:vis unsafe fn $name:ident => $body:ident, $args:tt) => {
        $crate::kernels::isa::isa_dispatch!(
            @with [std::arch::x86_64::__m512]
            [std::arch::x86_64::__m256]
            [$crate::kernels::vector::Scalar<false>]
            $(#[$m])* $vis unsafe fn $name => $body, $args
        );
    };
}
pub(crate) use isa_dispatch;
pub(crate) use vector_dispatch;

#[cfg(test)]
mod tests {
    #[test]
    #[cfg(all(target_os = "linux", target_arch = "x86_64"))]
    fn the_vendor_matches_the_kernels_report() {
        let info = std::fs::read_to_string("/proc/cpuinfo").unwrap();
        let vendor = info
            .lines()
            .find_map(|l| l.strip_prefix("vendor_id"))
            .map(|v| v.trim_start_matches([' ', '\t', ':']).trim());
        assert_eq!(super::intel_cpu(), vendor == Some("GenuineIntel"));
    }

    #[test]
    #[cfg(all(target_os = "linux", target_arch = "x86_64"))]
    fn the_l2_size_matches_the_kernels_report() {
        // sysfs: index2 is the unified L2 on x86 (absent in some containers: then not checked).
        let base = "/sys/devices/system/cpu/cpu0/cache/index2";
        let read = |f: &str| std::fs::read_to_string(format!("{base}/{f}"));
        if let (Ok(level), Ok(size)) = (read("level"), read("size")) {
            assert_eq!(level.trim(), "2");
            let kib: usize = size.trim().trim_end_matches('K').parse().unwrap();
            assert_eq!(super::l2_cache_bytes(1), kib << 10);
        }
        assert!(super::l2_cache_bytes(1) >= 1);
    }
}

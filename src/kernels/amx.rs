//! Intel AMX: detection, the Linux permission to use the tile registers, the tile
//! configuration, and the tile instructions the AMX kernels use (as `asm!`: Rust's AMX
//! intrinsics are unstable; the assembler takes the mnemonics without any target feature).
//!
//! AMX runs only when [`available`] says so: the CPU has AMX-TILE (and the kernel's own
//! extension, [`int8`] / [`bf16`]), the OS enabled the tile state in XCR0, and, on Linux, the
//! process was granted it (`arch_prctl(ARCH_REQ_XCOMP_PERM, XFEATURE_XTILEDATA)`, asked once;
//! without it the first tile instruction would kill the process). Elsewhere than Linux AMX is
//! not used.
//!
//! Tiles stay configured between kernel calls on a thread (`ldtilecfg` costs ten times what
//! reading the loaded configuration back does): [`configure`] loads a configuration only when
//! it differs from the loaded one, and [`release`] returns the tiles to their initial state
//! (for callers that want it when they are done).

use std::sync::OnceLock;

/// Rows of a tile.
pub const TILE_ROWS: usize = 16;
/// Bytes of a tile row.
pub const TILE_ROW_BYTES: usize = 64;

/// What this CPU and OS allow, decided once.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Support {
    /// Tiles usable (CPUID, XCR0 and the OS permission).
    tiles: bool,
    /// AMX-INT8 (`tdpbusd`).
    int8: bool,
    /// AMX-BF16 (`tdpbf16ps`).
    bf16: bool,
}

fn support() -> Support {
    static SUPPORT: OnceLock<Support> = OnceLock::new();
    *SUPPORT.get_or_init(detect)
}

#[cfg(all(target_arch = "x86_64", target_os = "linux"))]
fn detect() -> Support {
    use std::arch::x86_64::{__cpuid, __cpuid_count};
    if __cpuid(0).eax < 0xd {
        return Support::default();
    }
    // Leaf 7: EDX bit 22 AMX-BF16, 24 AMX-TILE, 25 AMX-INT8. Leaf 1: ECX bit 27 OSXSAVE.
    let edx = __cpuid_count(7, 0).edx;
    let (bf16, tile, int8) = (edx >> 22 & 1 == 1, edx >> 24 & 1 == 1, edx >> 25 & 1 == 1);
    if !tile || __cpuid(1).ecx >> 27 & 1 == 0 {
        return Support::default();
    }
    // XCR0 bits 17 (XTILECFG) and 18 (XTILEDATA): the OS manages the tile state.
    let xcr0 = {
        let (lo, hi): (u32, u32);
        // SAFETY: OSXSAVE is set, so XGETBV is enabled.
        unsafe {
            std::arch::asm!("xgetbv", in("ecx") 0, out("eax") lo, out("edx") hi,
                options(nomem, nostack, preserves_flags));
        }
        (hi as u64) << 32 | lo as u64
    };
    const TILE_STATE: u64 = 3 << 17;
    if xcr0 & TILE_STATE != TILE_STATE {
        return Support::default();
    }
    if !request_permission() {
        return Support::default();
    }
    Support {
        tiles: true,
        int8,
        bf16,
    }
}

#[cfg(not(all(target_arch = "x86_64", target_os = "linux")))]
fn detect() -> Support {
    Support::default()
}

/// Asks Linux for the tile data state (for the whole process); whether it was granted.
#[cfg(all(target_arch = "x86_64", target_os = "linux"))]
fn request_permission() -> bool {
    const ARCH_GET_XCOMP_PERM: libc::c_long = 0x1022;
    const ARCH_REQ_XCOMP_PERM: libc::c_long = 0x1023;
    const XFEATURE_XTILEDATA: libc::c_long = 18;
    // SAFETY: arch_prctl with these codes reads its integer argument or writes one u64.
    unsafe {
        if libc::syscall(
            libc::SYS_arch_prctl,
            ARCH_REQ_XCOMP_PERM,
            XFEATURE_XTILEDATA,
        ) != 0
        {
            return false;
        }
        let mut granted: u64 = 0;
        let r = libc::syscall(
            libc::SYS_arch_prctl,
            ARCH_GET_XCOMP_PERM,
            &mut granted as *mut u64,
        );
        r == 0 && granted >> XFEATURE_XTILEDATA & 1 == 1
    }
}

/// Whether the tiles can be used (CPU, OS and permission); decided once.
pub fn available() -> bool {
    support().tiles
}

/// Whether AMX-INT8 can run.
pub fn int8() -> bool {
    let s = support();
    s.tiles && s.int8
}

/// Whether AMX-BF16 can run.
pub fn bf16() -> bool {
    let s = support();
    s.tiles && s.bf16
}

/// A tile configuration (palette 1): the bytes `ldtilecfg` reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(C, align(64))]
pub struct TileConfig([u8; 64]);

impl TileConfig {
    /// Every tile unused.
    pub const fn new() -> Self {
        let mut b = [0; 64];
        b[0] = 1;
        Self(b)
    }

    /// Tile `t` with `rows` rows of `bytes` bytes (at most 16 × 64).
    pub const fn tile(mut self, t: usize, rows: usize, bytes: usize) -> Self {
        assert!(t < 8 && rows <= TILE_ROWS && bytes <= TILE_ROW_BYTES);
        self.0[16 + 2 * t] = bytes as u8;
        self.0[48 + t] = rows as u8;
        self
    }
}

impl Default for TileConfig {
    fn default() -> Self {
        Self::new()
    }
}

/// Makes `cfg` the thread's tile configuration (loading it only when another is loaded; a load
/// zeroes every tile).
///
/// # Safety
/// [`available`] must be true.
#[inline]
pub unsafe fn configure(cfg: &TileConfig) {
    let mut cur = TileConfig([0; 64]);
    // SAFETY: the caller's contract; both are 64 bytes.
    unsafe {
        std::arch::asm!("sttilecfg [{0}]", in(reg) cur.0.as_mut_ptr(),
            options(nostack, preserves_flags));
        if cur != *cfg {
            std::arch::asm!("ldtilecfg [{0}]", in(reg) cfg.0.as_ptr(),
                options(nostack, readonly, preserves_flags));
        }
    }
}

/// Returns the tiles to their initial (unconfigured) state.
///
/// # Safety
/// [`available`] must be true.
#[inline]
pub unsafe fn release() {
    // SAFETY: the caller's contract.
    unsafe { std::arch::asm!("tilerelease", options(nomem, nostack, preserves_flags)) }
}

/// Loads tile `T` from `rows` rows (as configured) `stride` bytes apart.
///
/// # Safety
/// Tiles configured; the rows readable.
#[inline(always)]
pub unsafe fn load<const T: usize>(p: *const u8, stride: usize) {
    // SAFETY: the caller's contract.
    unsafe {
        std::arch::asm!("tileloadd tmm{t}, [{p} + {s}*1]", t = const T, p = in(reg) p,
            s = in(reg) stride, options(nostack, readonly, preserves_flags));
    }
}

/// Stores tile `T` to rows `stride` bytes apart.
///
/// # Safety
/// Tiles configured; the rows writable.
#[inline(always)]
pub unsafe fn store<const T: usize>(p: *mut u8, stride: usize) {
    // SAFETY: the caller's contract.
    unsafe {
        std::arch::asm!("tilestored [{p} + {s}*1], tmm{t}", t = const T, p = in(reg) p,
            s = in(reg) stride, options(nostack, preserves_flags));
    }
}

/// Zeroes tile `T`.
///
/// # Safety
/// Tiles configured.
#[inline(always)]
pub unsafe fn zero<const T: usize>() {
    // SAFETY: the caller's contract.
    unsafe { std::arch::asm!("tilezero tmm{t}", t = const T, options(nostack, preserves_flags)) }
}

/// A tile dot product: `tmm{C} += tmm{A} · tmm{B}` (4-byte groups of A by rows of B).
pub trait Dot {
    /// Runs it.
    ///
    /// # Safety
    /// Tiles configured with compatible shapes; the CPU has the instruction.
    unsafe fn dot<const C: usize, const A: usize, const B: usize>();
}

/// AMX-INT8 `tdpbusd`: u8 A × s8 B → s32.
pub struct Int8;

impl Dot for Int8 {
    #[inline(always)]
    unsafe fn dot<const C: usize, const A: usize, const B: usize>() {
        // SAFETY: the caller's contract.
        unsafe {
            std::arch::asm!("tdpbusd tmm{c}, tmm{a}, tmm{b}", c = const C, a = const A,
                b = const B, options(nostack, preserves_flags));
        }
    }
}

/// AMX-INT8 `tdpbssd`: s8 A × s8 B → s32.
pub struct Int8Signed;

impl Dot for Int8Signed {
    #[inline(always)]
    unsafe fn dot<const C: usize, const A: usize, const B: usize>() {
        // SAFETY: the caller's contract.
        unsafe {
            std::arch::asm!("tdpbssd tmm{c}, tmm{a}, tmm{b}", c = const C, a = const A,
                b = const B, options(nostack, preserves_flags));
        }
    }
}

/// AMX-BF16 `tdpbf16ps`: pairs of bf16 A × pairs of bf16 B → f32.
pub struct Bf16;

impl Dot for Bf16 {
    #[inline(always)]
    unsafe fn dot<const C: usize, const A: usize, const B: usize>() {
        // SAFETY: the caller's contract.
        unsafe {
            std::arch::asm!("tdpbf16ps tmm{c}, tmm{a}, tmm{b}", c = const C, a = const A,
                b = const B, options(nostack, preserves_flags));
        }
    }
}

/// Runs `f::<T>(…)` for a tile number known only at run time (constant after inlining).
macro_rules! tile_match {
    ($t:expr, $f:ident, $($args:expr),*) => {
        match $t {
            0 => $f::<0>($($args),*),
            1 => $f::<1>($($args),*),
            2 => $f::<2>($($args),*),
            3 => $f::<3>($($args),*),
            4 => $f::<4>($($args),*),
            5 => $f::<5>($($args),*),
            6 => $f::<6>($($args),*),
            _ => $f::<7>($($args),*),
        }
    };
}

/// [`load`] of tile `t`.
///
/// # Safety
/// As [`load`].
#[inline(always)]
pub unsafe fn load_n(t: usize, p: *const u8, stride: usize) {
    unsafe { tile_match!(t, load, p, stride) }
}

/// [`store`] of tile `t`.
///
/// # Safety
/// As [`store`].
#[inline(always)]
pub unsafe fn store_n(t: usize, p: *mut u8, stride: usize) {
    unsafe { tile_match!(t, store, p, stride) }
}

/// [`zero`] of tile `t`.
///
/// # Safety
/// As [`zero`].
#[inline(always)]
pub unsafe fn zero_n(t: usize) {
    unsafe { tile_match!(t, zero,) }
}

/// [`Dot::dot`] of accumulator `c` (0..4), A tile `a` (4 or 5), B tile `b` (6 or 7).
///
/// # Safety
/// As [`Dot::dot`].
#[inline(always)]
pub unsafe fn dot_n<D: Dot>(c: usize, a: usize, b: usize) {
    macro_rules! arms {
        ($($c:literal $a:literal $b:literal),*) => {
            match (c, a, b) {
                $(($c, $a, $b) => D::dot::<$c, $a, $b>(),)*
                _ => unreachable!("accumulators 0..4, A tiles 4..6, B tiles 6..8"),
            }
        };
    }
    unsafe {
        arms!(0 4 6, 0 4 7, 0 5 6, 0 5 7, 1 4 6, 1 4 7, 1 5 6, 1 5 7,
              2 4 6, 2 4 7, 2 5 6, 2 5 7, 3 4 6, 3 4 7, 3 5 6, 3 5 7)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The detection agrees with /proc/cpuinfo (where the flags are listed): tiles only with
    /// `amx_tile`, each extension only with its flag.
    #[test]
    #[cfg(target_os = "linux")]
    fn detection_agrees_with_cpuinfo() {
        let info = std::fs::read_to_string("/proc/cpuinfo").unwrap();
        let flags: Vec<&str> = info
            .lines()
            .find_map(|l| l.strip_prefix("flags"))
            .map(|f| f.split_whitespace().collect())
            .unwrap_or_default();
        let has = |f: &str| flags.contains(&f);
        if !has("amx_tile") {
            assert!(!available());
        }
        assert!(!int8() || has("amx_int8"));
        assert!(!bf16() || has("amx_bf16"));
    }

    /// A configuration round-trips through `ldtilecfg` / `sttilecfg`, loads and stores move
    /// the configured rows only, and `release` unconfigures.
    #[test]
    fn configure_load_store_release() {
        if !available() {
            return;
        }
        let cfg = TileConfig::new().tile(0, 3, 8).tile(1, 16, 64);
        let src: Vec<u8> = (0..64 * 16).map(|i| i as u8).collect();
        let mut dst = vec![0xffu8; 64 * 16];
        // SAFETY: AMX is available; the buffers hold 16 rows of 64 bytes.
        unsafe {
            configure(&cfg);
            configure(&cfg);
            load::<0>(src.as_ptr(), 64);
            store::<0>(dst.as_mut_ptr(), 64);
            let mut cur = TileConfig([0; 64]);
            std::arch::asm!("sttilecfg [{0}]", in(reg) cur.0.as_mut_ptr());
            assert_eq!(cur, cfg);
            release();
            std::arch::asm!("sttilecfg [{0}]", in(reg) cur.0.as_mut_ptr());
            assert_eq!(cur, TileConfig([0; 64]));
        }
        for r in 0..16 {
            for j in 0..64 {
                let want = if r < 3 && j < 8 {
                    src[r * 64 + j]
                } else {
                    0xff
                };
                assert_eq!(dst[r * 64 + j], want, "row {r} byte {j}");
            }
        }
    }
}

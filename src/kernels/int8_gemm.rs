//! The int8 GEMM of the RNN primitives: u8 activations × s8 weights packed in 4-row groups
//! (`memory::packed_int8`) → s32, exact (no saturation anywhere).
//!
//! Versions: AMX-INT8 (`tdpbusd` on 16 × 16 tiles, `kernels::amx_gemm`; one packed row of 16
//! columns is one B tile row), AVX512-VNNI (`vpdpbusd` on 16 columns), AVX-VNNI (the same on
//! 8 columns), AVX-512 and AVX2 without VNNI (bytes widened to 16 bits, `vpmaddwd`) and a
//! portable loop, chosen from the kernels' [`Isa`] (`OXIDNN_ISA` caps it) and the CPU's
//! features within oneDNN's ISA cap (`kernels::cpu_isa`).

use super::start::Start;
use super::Isa;
use crate::memory::packed_int8::BlockRun;

/// Columns of one packed vector: 16 units × 4 bytes (one zmm).
pub const VECTOR: usize = 16;
/// Bytes of one packed vector.
pub const VECTOR_BYTES: usize = 64;
/// Vectors per block of B ([`Int8Gemm::block_bytes`]): the register tiles' width.
pub const BLOCK_VECTORS: usize = 4;
/// [`Int8Gemm::block_bytes`] of a B whose vectors are side by side in each group.
pub const SIDE_BY_SIDE: usize = BLOCK_VECTORS * VECTOR_BYTES;
const _: () = assert!(crate::memory::packed_int8::BLOCK == BLOCK_VECTORS * VECTOR);

/// The int8 kernel version.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Int8Kernel {
    /// Scalar loops.
    Portable,
    /// AVX2 without VNNI: bytes widened to 16 bits, `vpmaddwd` (exact).
    Avx2,
    /// AVX-VNNI (256-bit `vpdpbusd`).
    AvxVnni,
    /// AVX-512 (BW) without VNNI: as [`Int8Kernel::Avx2`] on zmm registers.
    Avx512,
    /// AVX512-VNNI.
    Avx512Vnni,
    /// AMX-INT8 tiles.
    Amx,
}

impl Int8Kernel {
    /// The best version for kernels capped at `isa` on this CPU.
    pub fn for_isa(isa: Isa) -> Self {
        #[cfg(target_arch = "x86_64")]
        {
            if isa >= Isa::Amx && super::amx::int8() {
                return Self::Amx;
            }
            use super::cpu_isa::{has, AVX2, AVX512_CORE, AVX512_VNNI, AVX_VNNI};
            if isa >= Isa::Avx512 && has(AVX512_CORE | AVX512_VNNI) {
                return Self::Avx512Vnni;
            }
            if isa >= Isa::Avx512 && has(AVX512_CORE) {
                return Self::Avx512;
            }
            if isa >= Isa::Avx2 && has(AVX_VNNI) {
                return Self::AvxVnni;
            }
            if isa >= Isa::Avx2 && has(AVX2) {
                return Self::Avx2;
            }
        }
        let _ = isa;
        Self::Portable
    }

    /// Every version this CPU runs, whatever the cap (for tests).
    pub fn all_supported() -> Vec<Self> {
        let mut all = vec![Self::Portable];
        #[cfg(target_arch = "x86_64")]
        {
            use std::arch::is_x86_feature_detected as has;
            let avx512 = has!("avx512f") && has!("avx512bw");
            for (kernel, runs) in [
                (Self::Avx2, has!("avx2")),
                (Self::AvxVnni, has!("avxvnni")),
                (Self::Avx512, avx512),
                (Self::Avx512Vnni, avx512 && has!("avx512vnni")),
                (Self::Amx, super::amx::int8()),
            ] {
                if runs {
                    all.push(kernel);
                }
            }
        }
        all
    }

    /// Short name, for implementation names.
    pub fn name(self) -> &'static str {
        match self {
            Self::Portable => "portable",
            Self::Avx2 => "avx2",
            Self::AvxVnni => "avx_vnni",
            Self::Avx512 => "avx512",
            Self::Avx512Vnni => "avx512_vnni",
            Self::Amx => "amx",
        }
    }
}

/// Operands of one GEMM call: `C[m][v·16 + j] (+)= Σ_k A[m][k] · B[k][v·16 + j]` for vectors
/// `v` in `0..vectors`.
#[derive(Clone, Copy, Debug)]
pub struct Int8Gemm {
    /// Rows of A and C.
    pub m: usize,
    /// A: `m` rows of `4·groups` u8 (zero-padded), `lda` bytes apart.
    pub a: *const u8,
    /// Bytes between rows of A.
    pub lda: usize,
    /// B: for each group of 4 rows, `vectors` packed vectors of 64 bytes (16 columns × 4 rows),
    /// in blocks of [`BLOCK_VECTORS`]: vector `v` of group `g` at `b + g·ldb + (v / 4)·block_bytes
    /// + (v % 4)·64`.
    pub b: *const i8,
    /// Bytes between groups of B.
    pub ldb: usize,
    /// Bytes between blocks of B: [`SIDE_BY_SIDE`] where a group's vectors are side by side;
    /// the stride of column blocks stored whole over the groups (`memory::packed_int8`).
    pub block_bytes: usize,
    /// Groups of 4 rows (K / 4).
    pub groups: usize,
    /// Packed vectors (of 16 columns) to compute.
    pub vectors: usize,
    /// C: `m` rows of s32, `ldc` values apart.
    pub c: *mut i32,
    /// Values between rows of C.
    pub ldc: usize,
    /// What C starts from (a `Row` of `16·vectors` s32 values).
    pub start: Start,
    /// For a B that comes from L3 (weights that overflow L2): `Some(next)` fetches the next
    /// column block of B into L2 while the tiles of one run, and, while the last runs, the
    /// first of `next` (the next call's B, as many groups `ldb` apart; null: none). The
    /// AVX-512 tiles do; the others read B as it comes.
    pub ahead: Option<*const i8>,
}

impl Int8Gemm {
    /// This GEMM on run `run` of column blocks of a packed int8 panel at `panel`
    /// (`memory::packed_int8`), this GEMM's C being at panel column `col0`.
    pub fn on_run(&self, panel: *const i8, col0: usize, run: &BlockRun) -> Self {
        Self {
            b: panel.wrapping_add(run.offset),
            ldb: run.ldb,
            block_bytes: run.stride,
            vectors: run.cols.div_ceil(VECTOR),
            c: self.c.wrapping_add(run.col0 - col0),
            ..*self
        }
    }

    /// Byte offset of vector `v` in a group of B.
    pub fn vector_offset(&self, v: usize) -> usize {
        vector_offset(v, self.block_bytes)
    }

    /// Whether a group's vectors are side by side (or in one block).
    pub fn side_by_side(&self) -> bool {
        self.vectors <= BLOCK_VECTORS || self.block_bytes == SIDE_BY_SIDE
    }

    /// This GEMM as one GEMM per block of B (not fetching ahead), for kernels that read a
    /// group's vectors side by side.
    pub fn by_block(&self) -> impl Iterator<Item = Self> {
        let op = *self;
        (0..op.vectors).step_by(BLOCK_VECTORS).map(move |v0| Self {
            b: op.b.wrapping_add(op.vector_offset(v0)),
            block_bytes: SIDE_BY_SIDE,
            vectors: (op.vectors - v0).min(BLOCK_VECTORS),
            c: op.c.wrapping_add(v0 * VECTOR),
            start: match op.start {
                Start::Row(row) => Start::Row(row.cast::<i32>().wrapping_add(v0 * VECTOR).cast()),
                s => s,
            },
            ahead: None,
            ..op
        })
    }
}

/// Byte offset of vector `v` in a group of a B whose blocks are `block_bytes` apart.
#[inline(always)]
fn vector_offset(v: usize, block_bytes: usize) -> usize {
    (v / BLOCK_VECTORS) * block_bytes + (v % BLOCK_VECTORS) * VECTOR_BYTES
}

/// Runs one GEMM with kernel `k`.
///
/// # Safety
/// Every operand must address what [`Int8Gemm`] describes; C must not overlap A or B; `k` must
/// run on this CPU (as [`Int8Kernel::for_isa`] returns).
pub unsafe fn gemm(k: Int8Kernel, op: &Int8Gemm) {
    match k {
        #[cfg(target_arch = "x86_64")]
        Int8Kernel::Amx => unsafe { gemm_amx(op) },
        #[cfg(target_arch = "x86_64")]
        Int8Kernel::Avx512Vnni => unsafe { x86::gemm_avx512(op, None) },
        #[cfg(target_arch = "x86_64")]
        Int8Kernel::AvxVnni => unsafe { x86::gemm_avx_vnni(op) },
        #[cfg(target_arch = "x86_64")]
        Int8Kernel::Avx2 => unsafe { x86::gemm_avx2(op) },
        #[cfg(target_arch = "x86_64")]
        Int8Kernel::Avx512 => unsafe { x86::gemm_avx512bw(op) },
        _ => unsafe { gemm_portable(op) },
    }
}

/// `C (+)= A₁·B₁ + A₂·B₂`: two GEMMs onto the same C (`first.start` says how C starts;
/// `second.start` is not read). With AMX or AVX512-VNNI both products are summed in the
/// same tiles and C is stored once; otherwise one GEMM after the other.
///
/// # Safety
/// As [`gemm`] for each; both have the same `m`, `vectors`, `c` and `ldc`.
pub unsafe fn gemm_pair(k: Int8Kernel, first: &Int8Gemm, second: &Int8Gemm) {
    debug_assert!(
        (first.m, first.vectors, first.c, first.ldc)
            == (second.m, second.vectors, second.c, second.ldc)
    );
    #[cfg(target_arch = "x86_64")]
    if k == Int8Kernel::Amx && first.m >= AMX_MIN_ROWS {
        if !(first.side_by_side() && second.side_by_side()) {
            for (x, y) in first.by_block().zip(second.by_block()) {
                // SAFETY: the caller's contract, block by block.
                unsafe { gemm_pair(k, &x, &y) }
            }
            return;
        }
        let (x, y) = (first.tiles(), second.tiles());
        // SAFETY: the caller's contract; `Int8Kernel::Amx` only where AMX-INT8 runs.
        return unsafe {
            super::amx_gemm::gemm_runs::<super::amx::Int8>(
                &[x.run(), y.run()],
                x.m,
                x.vectors,
                x.c,
                x.ldc,
                x.start,
            )
        };
    }
    #[cfg(target_arch = "x86_64")]
    if k == Int8Kernel::Avx512Vnni {
        // SAFETY: the caller's contract; `Int8Kernel::Avx512Vnni` only where it runs.
        return unsafe { x86::gemm_avx512(first, Some(second)) };
    }
    let second = Int8Gemm {
        start: Start::Accumulate,
        ..*second
    };
    // SAFETY: the caller's contract.
    unsafe {
        gemm(k, first);
        gemm(k, &second);
    }
}

/// Rows of A from which the AMX version uses the tiles: below, the AVX512-VNNI kernel is
/// faster (a tile product of one or two rows costs what one of 16 does).
pub const AMX_MIN_ROWS: usize = 3;

#[cfg(target_arch = "x86_64")]
impl Int8Gemm {
    /// The same product as an AMX tile GEMM (s32 C rows in bytes), of a B whose vectors are
    /// side by side.
    pub fn tiles(&self) -> super::amx_gemm::TileGemm {
        debug_assert!(self.side_by_side());
        super::amx_gemm::TileGemm {
            m: self.m,
            a: self.a,
            lda: self.lda,
            b: self.b.cast(),
            ldb: self.ldb,
            k: self.groups,
            vectors: self.vectors,
            c: self.c.cast(),
            ldc: 4 * self.ldc,
            start: self.start,
        }
    }
}

/// The AMX version.
///
/// # Safety
/// As [`gemm`].
#[cfg(target_arch = "x86_64")]
unsafe fn gemm_amx(op: &Int8Gemm) {
    use super::cpu_isa::{has, AVX512_CORE, AVX512_VNNI};
    if op.m < AMX_MIN_ROWS && has(AVX512_CORE | AVX512_VNNI) {
        // SAFETY: the caller's contract; the CPU has AVX512-VNNI.
        return unsafe { x86::gemm_avx512(op, None) };
    }
    if !op.side_by_side() {
        for x in op.by_block() {
            // SAFETY: the caller's contract, block by block.
            unsafe { gemm_amx(&x) }
        }
        return;
    }
    // SAFETY: the caller's contract; `Int8Kernel::Amx` only where AMX-INT8 runs.
    unsafe { super::amx_gemm::gemm::<super::amx::Int8>(&op.tiles()) }
}

/// The portable version.
///
/// # Safety
/// As [`gemm`].
unsafe fn gemm_portable(op: &Int8Gemm) {
    let cols = op.vectors * VECTOR;
    let mut acc = vec![0i32; cols];
    for m in 0..op.m {
        // SAFETY: the caller's contract.
        unsafe {
            let c = std::slice::from_raw_parts_mut(op.c.add(m * op.ldc), cols);
            match op.start {
                Start::Zero => acc.fill(0),
                Start::Row(row) => {
                    acc.copy_from_slice(std::slice::from_raw_parts(row.cast::<i32>(), cols))
                }
                Start::Accumulate => acc.copy_from_slice(c),
            }
            let a = op.a.add(m * op.lda);
            for g in 0..op.groups {
                let av = std::slice::from_raw_parts(a.add(4 * g), 4);
                let b = op.b.add(g * op.ldb);
                for (j, s) in acc.iter_mut().enumerate() {
                    let at = op.vector_offset(j / VECTOR) + 4 * (j % VECTOR);
                    let w = std::slice::from_raw_parts(b.add(at), 4);
                    *s += (0..4).map(|q| av[q] as i32 * w[q] as i32).sum::<i32>();
                }
            }
            c.copy_from_slice(&acc);
        }
    }
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    use super::{Int8Gemm, Start, VECTOR, VECTOR_BYTES};
    use std::arch::x86_64::*;

    /// Dispatches the register tiles of one GEMM, or of a pair onto the same C (`$pair`:
    /// `(first, Option<second>)`, the second summed in the same tiles), to `$tile::<R, V>`
    /// (through `$by_rows!` for the vector counts `$vs`): `$rows` rows and up to `$cols`
    /// vectors of 16 columns; column blocks outermost, so one block of `B` (`$cols` vectors × K,
    /// 32 KiB at K = 512 with 4 zmm vectors) stays in L1 while every row block of A passes over
    /// it. B is fetched ahead as the last GEMM says.
    macro_rules! tiles {
        ($pair:expr, $tile:ident, $rows:expr, $cols:expr, $by_rows:ident, $vs:tt) => {{
            let (op, second): (&Int8Gemm, Option<&Int8Gemm>) = $pair;
            let last = second.unwrap_or(op);
            let row_blocks = op.m.div_ceil($rows);
            let mut v0 = 0;
            while v0 < op.vectors {
                let v = (op.vectors - v0).min($cols);
                let mut m0 = 0;
                while m0 < op.m {
                    let r = (op.m - m0).min($rows);
                    // the tile's part of a GEMM's A and B
                    let operand = |g: &Int8Gemm| {
                        let (a, b) = (g.a.add(m0 * g.lda), g.b.add(g.vector_offset(v0)));
                        (a, g.lda, b, g.ldb, g.block_bytes, g.groups)
                    };
                    let operands = (operand(op), second.map(operand));
                    let c = op.c.add(m0 * op.ldc + v0 * VECTOR);
                    // where the accumulators start from, and its row stride
                    let start = match op.start {
                        Start::Zero => (std::ptr::null(), 0),
                        Start::Row(row) => (row.cast::<i32>().add(v0 * VECTOR), 0),
                        Start::Accumulate => (c.cast_const(), op.ldc),
                    };
                    // B fetched ahead: the next column block, this call's or the next call's
                    // first, its vectors shared out over the row blocks
                    let (next, next_vectors) = match last.ahead {
                        Some(_) if v0 + v < op.vectors => (
                            last.b.add(last.vector_offset(v0 + v)),
                            (op.vectors - v0 - v).min($cols),
                        ),
                        Some(next) if !next.is_null() => (next, op.vectors.min($cols)),
                        _ => (std::ptr::null(), 0),
                    };
                    let per = next_vectors.div_ceil(row_blocks);
                    let first = (m0 / $rows * per).min(next_vectors);
                    let fetch = (
                        next.wrapping_add(first * VECTOR_BYTES),
                        (first + per).min(next_vectors) - first,
                    );
                    let args = (operands, c, op.ldc, start, fetch);
                    // Adding to C (an RNN step's gates, from the layer GEMM of its chunk: in L3),
                    // the next tile's C is fetched while this one runs.
                    if matches!(op.start, Start::Accumulate) {
                        let (nm, nv) = if m0 + r < op.m {
                            (m0 + r, v0)
                        } else {
                            (0, v0 + v)
                        };
                        for i in nm..op.m.min(nm + $rows) {
                            for j in nv..op.vectors.min(nv + $cols) {
                                let line = op.c.wrapping_add(i * op.ldc + j * VECTOR);
                                _mm_prefetch::<_MM_HINT_T0>(line.cast());
                            }
                        }
                    }
                    by_vectors!($tile, r, v, args, $by_rows, $vs);
                    m0 += r;
                }
                v0 += v;
            }
        }};
    }

    /// `$tile::<r, v>(args)` for the vector counts listed (1 otherwise), each dispatched on
    /// the rows by `$rows!`.
    macro_rules! by_vectors {
        ($tile:ident, $r:expr, $v:expr, $args:expr, $rows:ident, [$($n:literal)*]) => {
            match $v {
                $($n => $rows!($tile, $r, $n, $args),)*
                _ => $rows!($tile, $r, 1, $args),
            }
        };
    }

    /// `$tile::<r, $v>(args)` for `r` in 1..=2.
    macro_rules! one_or_two {
        ($tile:ident, $r:expr, $v:literal, $args:expr) => {
            if $r == 2 {
                $tile::<2, $v>($args)
            } else {
                $tile::<1, $v>($args)
            }
        };
    }

    /// `$tile::<r, $v>(args)` for `r` in 1..=6.
    macro_rules! by_rows {
        ($tile:ident, $r:expr, $v:literal, $args:expr) => {
            match $r {
                6 => $tile::<6, $v>($args),
                5 => $tile::<5, $v>($args),
                4 => $tile::<4, $v>($args),
                3 => $tile::<3, $v>($args),
                2 => $tile::<2, $v>($args),
                _ => $tile::<1, $v>($args),
            }
        };
    }

    /// A tile's part of one GEMM: A, lda, B, ldb, block_bytes, groups.
    type Operand = (*const u8, usize, *const i8, usize, usize, usize);

    type TileArgs = (
        (Operand, Option<Operand>),
        *mut i32,
        usize,
        (*const i32, usize),
        (*const i8, usize),
    );

    #[target_feature(enable = "avx512f,avx512bw,avx512vnni")]
    pub(super) unsafe fn gemm_avx512(op: &Int8Gemm, second: Option<&Int8Gemm>) {
        // One or two rows (batch-1 or -2 steps) read each group of B whole, one stream per
        // panel rather than one per 4-vector block.
        if op.m <= 2 {
            unsafe { tiles!((op, second), tile512, 2, 8, one_or_two, [8 7 6 5 4 3 2]) }
        } else {
            unsafe { tiles!((op, second), tile512, 6, 4, by_rows, [4 3 2]) }
        }
    }

    #[target_feature(enable = "avx2,avxvnni")]
    pub(super) unsafe fn gemm_avx_vnni(op: &Int8Gemm) {
        unsafe { tiles!((op, None), tile256, 3, 2, by_rows, [4 3 2]) }
    }

    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn gemm_avx2(op: &Int8Gemm) {
        unsafe { tiles!((op, None), tile_avx2, 3, 1, by_rows, []) }
    }

    #[target_feature(enable = "avx512f,avx512bw")]
    pub(super) unsafe fn gemm_avx512bw(op: &Int8Gemm) {
        unsafe { tiles!((op, None), tile_avx512bw, 6, 2, by_rows, [2]) }
    }

    /// `group(set, a, b)` for every group of A from `a` (4 bytes each) and B from `b` (`ldb`
    /// apart), onto the first accumulator set, or the two alternately. The loop advances
    /// pointers (see [`tile512`]).
    #[inline(always)]
    fn each_group<S>(
        (first, second): (&mut S, Option<&mut S>),
        (a, b, groups, ldb): (*const u8, *const i8, usize, usize),
        mut group: impl FnMut(&mut S, *const u8, *const i8),
    ) {
        let (mut ap, mut bp, a_end) = (a, b, a.wrapping_add(4 * groups));
        match second {
            None => {
                while ap != a_end {
                    group(first, ap, bp);
                    (ap, bp) = (ap.wrapping_add(4), bp.wrapping_add(ldb));
                }
            }
            Some(second) => {
                while ap != a_end {
                    group(first, ap, bp);
                    (ap, bp) = (ap.wrapping_add(4), bp.wrapping_add(ldb));
                    if ap != a_end {
                        group(second, ap, bp);
                        (ap, bp) = (ap.wrapping_add(4), bp.wrapping_add(ldb));
                    }
                }
            }
        }
    }

    /// One `R × V` tile of 16-column vectors with `vpdpbusd` on zmm registers (up to 24
    /// accumulators). The group loop advances pointers: indexing every operand by the group
    /// kept too many addresses live, which the compiler spilled and reloaded every group.
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,avx512vnni")]
    unsafe fn tile512<const R: usize, const V: usize>(args: TileArgs) {
        let (operands, c, ldc, (start, lds), (ahead, lines)) = args;
        unsafe {
            let mut s = [[_mm512_setzero_si512(); V]; R];
            if !start.is_null() {
                for (r, row) in s.iter_mut().enumerate() {
                    for (v, x) in row.iter_mut().enumerate() {
                        *x = _mm512_loadu_si512(start.add(r * lds + v * VECTOR).cast());
                    }
                }
            }
            // A tile of at most 8 accumulators cannot hide `vpdpbusd`'s latency: every other
            // group goes to a second set, added at the end.
            let split = R * V <= 8;
            let mut odd = [[_mm512_setzero_si512(); V]; R];
            // Each GEMM's groups onto the same accumulators, the last fetching ahead.
            let (first, second) = operands;
            let count = 1 + usize::from(second.is_some());
            for (k, (a, lda, b, ldb, block_bytes, groups)) in
                std::iter::once(first).chain(second).enumerate()
            {
                let at = |v: usize| super::vector_offset(v, block_bytes);
                // One group: B's vectors at `bp`, row r of A at `ap + r·lda`.
                let group = |s: &mut [[__m512i; V]; R], ap: *const u8, bp: *const i8| {
                    let bv: [__m512i; V] =
                        std::array::from_fn(|v| _mm512_loadu_si512(bp.add(at(v)).cast()));
                    for (r, row) in s.iter_mut().enumerate() {
                        let word = ap.add(r * lda).cast::<i32>().read_unaligned();
                        let av = _mm512_set1_epi32(word);
                        for (x, w) in row.iter_mut().zip(&bv) {
                            *x = _mm512_dpbusd_epi32(*x, av, *w);
                        }
                    }
                };
                let sets = (&mut s, split.then_some(&mut odd));
                if lines == 0 || k + 1 < count {
                    each_group(sets, (a, b, groups, ldb), group);
                } else {
                    let mut fetch = ahead;
                    let fetched_group = |s: &mut [[__m512i; V]; R], ap, bp| {
                        for q in 0..lines {
                            _mm_prefetch::<_MM_HINT_T1>(fetch.wrapping_add(at(q)));
                        }
                        group(s, ap, bp);
                        fetch = fetch.wrapping_add(ldb);
                    };
                    each_group(sets, (a, b, groups, ldb), fetched_group);
                }
            }
            if split {
                for (row, o) in s.iter_mut().zip(&odd) {
                    for (x, y) in row.iter_mut().zip(o) {
                        *x = _mm512_add_epi32(*x, *y);
                    }
                }
            }
            for (r, row) in s.iter().enumerate() {
                for (v, x) in row.iter().enumerate() {
                    _mm512_storeu_si512(c.add(r * ldc + v * VECTOR).cast(), *x);
                }
            }
        }
    }

    /// One `R × V` tile of 16-column vectors with AVX-VNNI: each vector as two ymm halves (up
    /// to 12 accumulators of the 16 ymm registers).
    #[inline]
    #[target_feature(enable = "avx2,avxvnni")]
    unsafe fn tile256<const R: usize, const V: usize>(args: TileArgs) {
        // One GEMM (`gemm_avx_vnni`); a tile of at most 4 vectors from a block's start or
        // middle: side by side.
        let (((a, lda, b, ldb, _, groups), _), c, ldc, (start, lds), _) = args;
        unsafe {
            let mut s = [[[_mm256_setzero_si256(); 2]; V]; R];
            if !start.is_null() {
                for (r, row) in s.iter_mut().enumerate() {
                    for (v, x) in row.iter_mut().enumerate() {
                        for (h, y) in x.iter_mut().enumerate() {
                            let at = start.add(r * lds + v * VECTOR + 8 * h);
                            *y = _mm256_loadu_si256(at.cast());
                        }
                    }
                }
            }
            for g in 0..groups {
                let bp = b.add(g * ldb);
                let bv: [[__m256i; 2]; V] = std::array::from_fn(|v| {
                    std::array::from_fn(|h| {
                        _mm256_loadu_si256(bp.add(v * VECTOR_BYTES + 32 * h).cast())
                    })
                });
                for (r, row) in s.iter_mut().enumerate() {
                    let word = a.add(r * lda + 4 * g).cast::<i32>().read_unaligned();
                    let av = _mm256_set1_epi32(word);
                    for (x, w) in row.iter_mut().zip(&bv) {
                        for h in 0..2 {
                            x[h] = _mm256_dpbusd_avx_epi32(x[h], av, w[h]);
                        }
                    }
                }
            }
            for (r, row) in s.iter().enumerate() {
                for (v, x) in row.iter().enumerate() {
                    for (h, y) in x.iter().enumerate() {
                        _mm256_storeu_si256(c.add(r * ldc + v * VECTOR + 8 * h).cast(), *y);
                    }
                }
            }
        }
    }

    /// One `R × V` tile with AVX2 alone: a group's bytes widened to 16 bits and multiplied in
    /// pairs (`vpmaddwd`: u8 · s8 pairs cannot saturate, the sums are exact), each vector's 16
    /// columns in four accumulators of 4 columns × 2 partial sums, folded at the end.
    #[inline]
    #[target_feature(enable = "avx2")]
    unsafe fn tile_avx2<const R: usize, const V: usize>(args: TileArgs) {
        // One GEMM (`gemm_avx2`); a tile of one vector.
        let (((a, lda, b, ldb, _, groups), _), c, ldc, (start, lds), _) = args;
        unsafe {
            let mut s = [[[_mm256_setzero_si256(); 4]; V]; R];
            for g in 0..groups {
                let bp = b.add(g * ldb);
                let mut av = [_mm256_setzero_si256(); R];
                for (r, x) in av.iter_mut().enumerate() {
                    let word = a.add(r * lda + 4 * g).cast::<i32>().read_unaligned();
                    // a0 a1 a2 a3, four times, as 16-bit values
                    *x = _mm256_cvtepu8_epi16(_mm_set1_epi32(word));
                }
                for v in 0..V {
                    for q in 0..4 {
                        // columns 4q … 4q + 3 of the vector, four rows of K each
                        let w = _mm_loadu_si128(bp.add(v * VECTOR_BYTES + 16 * q).cast());
                        let w = _mm256_cvtepi8_epi16(w);
                        for (row, x) in s.iter_mut().zip(&av) {
                            row[v][q] = _mm256_add_epi32(row[v][q], _mm256_madd_epi16(w, *x));
                        }
                    }
                }
            }
            for (r, row) in s.iter().enumerate() {
                for (v, x) in row.iter().enumerate() {
                    for h in 0..2 {
                        // [c0 c1 c4 c5 | c2 c3 c6 c7] of the pair, then in column order
                        let sums = _mm256_hadd_epi32(x[2 * h], x[2 * h + 1]);
                        let mut y = _mm256_permute4x64_epi64::<0b11_01_10_00>(sums);
                        if !start.is_null() {
                            let at = start.add(r * lds + v * VECTOR + 8 * h);
                            y = _mm256_add_epi32(y, _mm256_loadu_si256(at.cast()));
                        }
                        _mm256_storeu_si256(c.add(r * ldc + v * VECTOR + 8 * h).cast(), y);
                    }
                }
            }
        }
    }

    /// [`tile_avx2`] on zmm registers (AVX-512 without VNNI): each vector's 16 columns in two
    /// accumulators of 8 columns × 2 partial sums, folded at the end.
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw")]
    unsafe fn tile_avx512bw<const R: usize, const V: usize>(args: TileArgs) {
        // One GEMM (`gemm_avx512bw`); a tile of at most 2 vectors from a block's start or
        // middle: side by side.
        let (((a, lda, b, ldb, _, groups), _), c, ldc, (start, lds), _) = args;
        unsafe {
            let mut s = [[[_mm512_setzero_si512(); 2]; V]; R];
            for g in 0..groups {
                let bp = b.add(g * ldb);
                let mut av = [_mm512_setzero_si512(); R];
                for (r, x) in av.iter_mut().enumerate() {
                    let word = a.add(r * lda + 4 * g).cast::<i32>().read_unaligned();
                    *x = _mm512_cvtepu8_epi16(_mm256_set1_epi32(word));
                }
                for v in 0..V {
                    for h in 0..2 {
                        // columns 8h … 8h + 7 of the vector, four rows of K each
                        let w = _mm256_loadu_si256(bp.add(v * VECTOR_BYTES + 32 * h).cast());
                        let w = _mm512_cvtepi8_epi16(w);
                        for (row, x) in s.iter_mut().zip(&av) {
                            row[v][h] = _mm512_add_epi32(row[v][h], _mm512_madd_epi16(w, *x));
                        }
                    }
                }
            }
            // the first and the second partial sum of each of the 16 columns
            let first =
                _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
            let second = _mm512_add_epi32(first, _mm512_set1_epi32(1));
            for (r, row) in s.iter().enumerate() {
                for (v, x) in row.iter().enumerate() {
                    let mut y = _mm512_add_epi32(
                        _mm512_permutex2var_epi32(x[0], first, x[1]),
                        _mm512_permutex2var_epi32(x[0], second, x[1]),
                    );
                    if !start.is_null() {
                        let at = start.add(r * lds + v * VECTOR);
                        y = _mm512_add_epi32(y, _mm512_loadu_si512(at.cast()));
                    }
                    _mm512_storeu_si512(c.add(r * ldc + v * VECTOR).cast(), y);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A deterministic stream of bytes (an LCG from `seed`).
    fn bytes(mut seed: u32) -> impl FnMut() -> u8 {
        move || {
            seed = seed.wrapping_mul(1_103_515_245).wrapping_add(12_345);
            (seed >> 16) as u8
        }
    }

    /// The GEMM of dense operands: `m` rows of A (`groups` groups each), B's `vectors` vectors
    /// per group, C's rows of `vectors` × 16 values.
    fn dense(
        m: usize,
        vectors: usize,
        groups: usize,
        (a, b, c): (&[u8], &[i8], &mut [i32]),
        start: Start,
    ) -> Int8Gemm {
        Int8Gemm {
            m,
            a: a.as_ptr(),
            lda: groups * 4,
            b: b.as_ptr(),
            ldb: vectors * 64,
            block_bytes: SIDE_BY_SIDE,
            groups,
            vectors,
            c: c.as_mut_ptr(),
            ldc: vectors * VECTOR,
            start,
            ahead: None,
        }
    }

    /// B of `dense` stored in blocks of 4 vectors, each whole over the groups (`ldb` 256), a
    /// line of padding between blocks: `(blocked B, block_bytes)`.
    fn blocked(b: &[i8], vectors: usize, groups: usize) -> (Vec<i8>, usize) {
        let block_bytes = groups * SIDE_BY_SIDE + 64;
        let mut out = vec![0i8; vectors.div_ceil(BLOCK_VECTORS) * block_bytes];
        for g in 0..groups {
            for v in 0..vectors {
                let to = (v / BLOCK_VECTORS) * block_bytes + g * SIDE_BY_SIDE;
                let to = to + (v % BLOCK_VECTORS) * 64;
                out[to..to + 64].copy_from_slice(&b[(g * vectors + v) * 64..][..64]);
            }
        }
        (out, block_bytes)
    }

    /// Every kernel this CPU runs gives the exact s32 products, from zeros, from a row or
    /// accumulating, fetching B ahead or not, with B's vectors side by side or in blocks, for
    /// tiles of every shape (rows 1..=13 by vectors 1..=7; one and two rows by up to 13
    /// vectors), and, for the AMX tiles, rows and groups below, at and above 16 and not
    /// multiples of it.
    #[test]
    fn kernels_match_exact_integer_products() {
        let kernels = Int8Kernel::all_supported();
        assert!(kernels.contains(&Int8Kernel::Portable));
        let mut next = bytes(7);
        let shapes = [
            (1, 1, 1),
            (9, 6, 5),
            (4, 4, 3),
            (5, 2, 7),
            (13, 7, 3),
            (8, 3, 2),
            (16, 3, 16),
            (37, 5, 21),
            (64, 8, 128),
            (20, 2, 33),
            // one or two rows: up to 8 vectors a tile
            (1, 8, 5),
            (2, 11, 9),
            (1, 13, 3),
            (2, 6, 4),
        ];
        for (m, vectors, groups) in shapes {
            let a: Vec<u8> = (0..m * groups * 4).map(|_| next()).collect();
            let b: Vec<i8> = (0..groups * vectors * 64).map(|_| next() as i8).collect();
            let cols = vectors * VECTOR;
            let mut products = vec![0i32; m * cols];
            for r in 0..m {
                for j in 0..cols {
                    let mut s = 0;
                    for k in 0..groups * 4 {
                        let (g, q) = (k / 4, k % 4);
                        s += a[r * groups * 4 + k] as i32 * b[g * vectors * 64 + 4 * j + q] as i32;
                    }
                    products[r * cols + j] = s;
                }
            }
            let row: Vec<i32> = (0..cols).map(|j| 7 * j as i32 - 50).collect();
            for &k in &kernels {
                let starts = [
                    Start::Zero,
                    Start::Row(row.as_ptr().cast()),
                    Start::Accumulate,
                ];
                let (bb, block_bytes) = blocked(&b, vectors, groups);
                let cases = starts.into_iter().zip([None, Some(b.as_ptr()), None]);
                for ((start, ahead), in_blocks) in cases.flat_map(|x| [(x, false), (x, true)]) {
                    let mut c: Vec<i32> = (0..m * cols).map(|i| 3 * i as i32).collect();
                    let mut op = Int8Gemm {
                        ahead,
                        ..dense(m, vectors, groups, (&a, &b, &mut c), start)
                    };
                    if in_blocks {
                        (op.b, op.ldb, op.block_bytes) = (bb.as_ptr(), SIDE_BY_SIDE, block_bytes);
                    }
                    // SAFETY: the buffers have the sizes the operands describe; the row has
                    // `cols` values.
                    unsafe { gemm(k, &op) };
                    let want: Vec<i32> = (0..m * cols)
                        .map(|i| {
                            products[i]
                                + match start {
                                    Start::Zero => 0,
                                    Start::Row(_) => row[i % cols],
                                    Start::Accumulate => 3 * i as i32,
                                }
                        })
                        .collect();
                    assert_eq!(
                        c, want,
                        "{k:?} m {m} vectors {vectors} {start:?} blocks {in_blocks}"
                    );
                }
            }
        }
    }

    /// A pair of GEMMs onto one C equals the two run one after the other, on every kernel,
    /// for runs of equal and different K (below, at and above a tile's 16 groups), the first
    /// B's vectors side by side or in blocks (the second then fetched ahead).
    #[test]
    fn pairs_equal_two_gemms() {
        let mut next = bytes(11);
        for (m, vectors, g1, g2) in [
            (19, 8, 128, 128),
            (64, 8, 16, 128),
            (5, 6, 7, 33),
            (2, 3, 4, 4),
            (37, 2, 21, 16),
        ] {
            let a1: Vec<u8> = (0..m * g1 * 4).map(|_| next()).collect();
            let a2: Vec<u8> = (0..m * g2 * 4).map(|_| next()).collect();
            let b1: Vec<i8> = (0..g1 * vectors * 64).map(|_| next() as i8).collect();
            let b2: Vec<i8> = (0..g2 * vectors * 64).map(|_| next() as i8).collect();
            let cols = vectors * VECTOR;
            let op = |a: &[u8], b: &[i8], groups, c: &mut [i32], accumulate| {
                let start = if accumulate {
                    Start::Accumulate
                } else {
                    Start::Zero
                };
                dense(m, vectors, groups, (a, b, c), start)
            };
            let (bb, block_bytes) = blocked(&b1, vectors, g1);
            for k in Isa::all_supported().into_iter().map(Int8Kernel::for_isa) {
                for (accumulate, in_blocks) in [(false, false), (true, false), (true, true)] {
                    let start: Vec<i32> = (0..m * cols).map(|i| 5 * i as i32).collect();
                    let (mut want, mut got) = (start.clone(), start);
                    // SAFETY: the buffers have the sizes the operands describe.
                    unsafe {
                        gemm(k, &op(&a1, &b1, g1, &mut want, accumulate));
                        gemm(k, &op(&a2, &b2, g2, &mut want, true));
                        let mut first = op(&a1, &b1, g1, &mut got, accumulate);
                        if in_blocks {
                            (first.b, first.ldb) = (bb.as_ptr(), SIDE_BY_SIDE);
                            first.block_bytes = block_bytes;
                        }
                        let mut second = op(&a2, &b2, g2, &mut got, false);
                        if in_blocks {
                            second.ahead = Some(b2.as_ptr());
                        }
                        gemm_pair(k, &first, &second);
                    }
                    assert_eq!(
                        got, want,
                        "{k:?} m {m} vectors {vectors} K {g1}+{g2} acc {accumulate} {in_blocks}"
                    );
                }
            }
        }
    }
}

//! benchdnn's f32 input fill (SYNTAX.md §3.2): deterministic normal values per 64-element chunk,
//! clipped to [0, 1); sparse weights with one 1/G per output column; a 5 % sparse bias; and the
//! sign flip of the first batch row that exercises ReLU's negative slope.

/// Which tensor a fill is for (part of the seed, so tensors differ).
#[derive(Clone, Copy, Debug)]
pub enum Kind {
    /// `src_layer`.
    SrcLayer = 0,
    /// `src_iter`.
    SrcIter = 1,
    /// `src_iter_c`.
    SrcIterC = 2,
    /// `bias`.
    Bias = 3,
    /// `weights_peephole`.
    Peephole = 4,
    /// `augru_attention`.
    Attention = 5,
    /// `diff_dst_layer`.
    DiffDstLayer = 6,
    /// `diff_dst_iter`.
    DiffDstIter = 7,
    /// `diff_dst_iter_c`.
    DiffDstIterC = 8,
    /// Pre-filled diff weights and bias (offset by the argument, so each differs).
    DiffWeights = 9,
}

/// f32 fill distribution: mean, standard deviation and the clipping range.
const MEAN: f32 = 0.5;
const STDDEV: f32 = 0.01;
const MIN: f32 = 0.0;
const MAX: f32 = 0.999_999;
/// Elements generated from one seed.
const CHUNK: usize = 64;

/// `std::minstd_rand`: a Lehmer generator, as benchdnn seeds per chunk.
struct MinStd(u64);

impl MinStd {
    fn new(seed: u64) -> Self {
        let s = seed % 2_147_483_647;
        Self(if s == 0 { 1 } else { s })
    }

    /// Uniform in [−1, 1).
    fn uniform(&mut self) -> f32 {
        self.0 = self.0 * 48_271 % 2_147_483_647;
        (self.0 as f64 / 2_147_483_647.0 * 2.0 - 1.0) as f32
    }
}

/// Normal values by Marsaglia's polar method (each draw yields two values).
struct Normal {
    rng: MinStd,
    spare: Option<f32>,
}

impl Normal {
    fn next(&mut self) -> f32 {
        if let Some(v) = self.spare.take() {
            return v;
        }
        loop {
            let (x, y) = (self.rng.uniform(), self.rng.uniform());
            let r2 = x * x + y * y;
            if r2 > 0.0 && r2 < 1.0 {
                let m = (-2.0 * r2.ln() / r2).sqrt();
                self.spare = Some(y * m);
                return x * m;
            }
        }
    }
}

/// `len` activation-like values: normal(0.5, 0.01) clipped to [0, 1).
pub fn activations(len: usize, kind: Kind) -> Vec<f32> {
    activations_seeded(len, kind as u64)
}

/// Activation-like values from seed `seed` (tensor kinds are the small seeds).
pub fn activations_seeded(len: usize, seed: u64) -> Vec<f32> {
    let mut v = Vec::with_capacity(len);
    for start in (0..len).step_by(CHUNK) {
        let mut gen = Normal {
            rng: MinStd::new(start as u64 + seed + 1),
            spare: None,
        };
        for _ in start..(start + CHUNK).min(len) {
            v.push((MEAN + STDDEV * gen.next()).clamp(MIN, MAX));
        }
    }
    v
}

/// benchdnn's ReLU check: negates the first batch row of `[..][N][C]` data.
pub fn flip_first_batch_row(v: &mut [f32], n: usize, c: usize) {
    if n * c == 0 {
        return;
    }
    for row in v.chunks_mut(n * c) {
        row[..c].iter_mut().for_each(|x| *x = -*x);
    }
}

/// Sparse weights `[L][D][I][G][O]`: for every (l, d, g, o) one input row
/// `(19·o + 7·g + 11·d + 13·l) mod I` holds `value`, the rest are zeros.
pub fn sparse_weights(l: usize, d: usize, i: usize, g: usize, o: usize, value: f32) -> Vec<f32> {
    let mut w = vec![0f32; l * d * i * g * o];
    if i == 0 {
        return w;
    }
    for (ll, dd, gg, oo) in (0..l)
        .flat_map(|a| (0..d).map(move |b| (a, b)))
        .flat_map(|(a, b)| (0..g).map(move |c| (a, b, c)))
        .flat_map(|(a, b, c)| (0..o).map(move |e| (a, b, c, e)))
    {
        let row = (19 * oo + 7 * gg + 11 * dd + 13 * ll) % i;
        w[(((ll * d + dd) * i + row) * g + gg) * o + oo] = value;
    }
    w
}

/// The bias: 5 % of the elements drawn like activations, the rest zeros.
pub fn sparse_bias(len: usize) -> Vec<f32> {
    let values = activations(len, Kind::Bias);
    let mut keep = MinStd::new(0x5EED);
    values
        .into_iter()
        .map(|v| if keep.uniform() < -0.9 { v } else { 0.0 })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn activations_are_deterministic_clipped_and_near_the_mean() {
        let a = activations(1000, Kind::SrcLayer);
        assert_eq!(a, activations(1000, Kind::SrcLayer));
        assert_ne!(a, activations(1000, Kind::SrcIter));
        assert!(a.iter().all(|&x| (MIN..=MAX).contains(&x)));
        let mean = a.iter().sum::<f32>() / a.len() as f32;
        assert!((mean - 0.5).abs() < 0.002, "{mean}");
        assert!(a.iter().any(|&x| (x - 0.5).abs() > 0.01));
    }

    #[test]
    fn weights_have_one_value_per_output_column() {
        let (l, d, i, g, o) = (2, 2, 5, 4, 3);
        let w = sparse_weights(l, d, i, g, o, 0.25);
        assert_eq!(w.iter().filter(|&&x| x == 0.25).count(), l * d * g * o);
        // (l, d, g, o) = (1, 1, 2, 1): row (19 + 14 + 11 + 13) mod 5 = 2.
        assert_eq!(w[(((d + 1) * i + 2) * g + 2) * o + 1], 0.25);
    }

    #[test]
    fn bias_is_mostly_zero_and_flip_touches_the_first_row() {
        let b = sparse_bias(4000);
        let nz = b.iter().filter(|&&x| x != 0.0).count();
        assert!((100..300).contains(&nz), "{nz}");
        let mut v = vec![1.0; 2 * 3 * 4];
        flip_first_batch_row(&mut v, 3, 4);
        assert_eq!(v.iter().filter(|&&x| x < 0.0).count(), 2 * 4);
        assert_eq!(v[12], -1.0);
        assert_eq!(v[4], 1.0);
    }
}

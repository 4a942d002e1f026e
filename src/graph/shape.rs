//! Partial shapes (static or dynamic dims, possibly unknown rank) and numpy broadcasting rules.

use std::fmt;

use crate::error::{Error, Result};

/// One dimension: `Some(n)` when known, `None` when dynamic (`-1` / `?` in IR).
pub type Dim = Option<usize>;

/// A shape known up to some dynamic dims; `dims == None` means the rank itself is unknown.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct PartialShape {
    dims: Option<Vec<Dim>>,
}

impl PartialShape {
    /// A shape of unknown rank.
    pub fn dynamic() -> Self {
        Self { dims: None }
    }

    /// A shape of known rank whose dims are all dynamic.
    pub fn dynamic_of_rank(rank: usize) -> Self {
        Self {
            dims: Some(vec![None; rank]),
        }
    }

    /// A shape from known-rank dims.
    pub fn new(dims: Vec<Dim>) -> Self {
        Self { dims: Some(dims) }
    }

    /// A fully static shape.
    pub fn from_static(dims: &[usize]) -> Self {
        Self {
            dims: Some(dims.iter().map(|&d| Some(d)).collect()),
        }
    }

    /// The rank, if known.
    pub fn rank(&self) -> Option<usize> {
        self.dims.as_ref().map(Vec::len)
    }

    /// The dims, if the rank is known.
    pub fn dims(&self) -> Option<&[Dim]> {
        self.dims.as_deref()
    }

    /// The static shape, if every dim is known.
    pub fn to_static(&self) -> Option<Vec<usize>> {
        self.dims.as_ref()?.iter().copied().collect()
    }

    /// True if some concrete shape satisfies both.
    pub fn compatible(&self, other: &PartialShape) -> bool {
        match (&self.dims, &other.dims) {
            (Some(a), Some(b)) => {
                a.len() == b.len()
                    && a.iter()
                        .zip(b)
                        .all(|(x, y)| x.is_none() || y.is_none() || x == y)
            }
            _ => true,
        }
    }

    /// True if the concrete `shape` satisfies this partial shape.
    pub fn accepts(&self, shape: &[usize]) -> bool {
        self.compatible(&PartialShape::from_static(shape))
    }

    /// The most precise shape compatible with both (callers check [`Self::compatible`] first);
    /// known dims of either side win.
    pub fn refine(&self, other: &PartialShape) -> PartialShape {
        match (&self.dims, &other.dims) {
            (Some(a), Some(b)) if a.len() == b.len() => {
                PartialShape::new(a.iter().zip(b).map(|(x, y)| x.or(*y)).collect())
            }
            (Some(_), _) => self.clone(),
            _ => other.clone(),
        }
    }
}

impl fmt::Display for PartialShape {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.dims {
            None => f.write_str("[...]"),
            Some(d) => {
                f.write_str("[")?;
                for (i, x) in d.iter().enumerate() {
                    if i > 0 {
                        f.write_str(",")?;
                    }
                    match x {
                        Some(n) => write!(f, "{n}")?,
                        None => f.write_str("?")?,
                    }
                }
                f.write_str("]")
            }
        }
    }
}

/// Numpy (bidirectional) broadcast of two static shapes: dims aligned from the right, each pair
/// equal or one of them 1.
pub fn broadcast_static(a: &[usize], b: &[usize]) -> Result<Vec<usize>> {
    let rank = a.len().max(b.len());
    let mut out = vec![0; rank];
    for (i, o) in out.iter_mut().enumerate() {
        let da = dim_from_right(a, rank, i).unwrap_or(1);
        let db = dim_from_right(b, rank, i).unwrap_or(1);
        *o = match (da, db) {
            (x, y) if x == y => x,
            (1, y) => y,
            (x, 1) => x,
            _ => {
                return Err(Error::InvalidArguments(format!(
                    "shapes {a:?} and {b:?} do not broadcast (numpy rules)"
                )))
            }
        };
    }
    Ok(out)
}

/// Numpy broadcast of two partial shapes (dynamic dims stay dynamic unless the other side is a
/// known dim other than 1).
pub fn broadcast_partial(a: &PartialShape, b: &PartialShape) -> Result<PartialShape> {
    let (Some(da), Some(db)) = (a.dims(), b.dims()) else {
        return Ok(PartialShape::dynamic());
    };
    let rank = da.len().max(db.len());
    let mut out = Vec::with_capacity(rank);
    for i in 0..rank {
        let x = dim_from_right(da, rank, i).unwrap_or(Some(1));
        let y = dim_from_right(db, rank, i).unwrap_or(Some(1));
        out.push(match (x, y) {
            (Some(p), Some(q)) if p == q => Some(p),
            (Some(1), q) => q,
            (p, Some(1)) => p,
            (Some(p), Some(q)) => {
                return Err(Error::InvalidArguments(format!(
                    "shapes {a} and {b} do not broadcast (numpy rules: {p} vs {q})"
                )))
            }
            (Some(p), None) | (None, Some(p)) => Some(p),
            (None, None) => None,
        });
    }
    Ok(PartialShape::new(out))
}

/// The dim of `shape` at output position `i` when right-aligned into `rank` dims.
fn dim_from_right<T: Copy>(shape: &[T], rank: usize, i: usize) -> Option<T> {
    let offset = rank - shape.len();
    (i >= offset).then(|| shape[i - offset])
}

/// Normalizes a possibly negative axis against `rank`; `what` names it in the error.
pub fn normalize_axis(axis: i64, rank: usize, what: &str) -> Result<usize> {
    let r = rank as i64;
    if axis < -r || axis >= r {
        return Err(Error::InvalidArguments(format!(
            "{what} {axis} is out of range for rank {rank} (allowed [{}, {}])",
            -r,
            r - 1
        )));
    }
    Ok(if axis < 0 {
        (axis + r) as usize
    } else {
        axis as usize
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numpy_broadcast() {
        assert_eq!(
            broadcast_static(&[2, 1, 3], &[4, 1]).unwrap(),
            vec![2, 4, 3]
        );
        assert!(broadcast_static(&[2, 3], &[4]).is_err());
        let a = PartialShape::new(vec![None, Some(3)]);
        let b = PartialShape::from_static(&[5, 1, 1]);
        assert_eq!(broadcast_partial(&a, &b).unwrap().to_string(), "[5,?,3]");
    }

    #[test]
    fn axes() {
        assert_eq!(normalize_axis(-1, 3, "axis").unwrap(), 2);
        assert!(normalize_axis(3, 3, "axis").is_err());
        assert!(normalize_axis(-4, 3, "axis").is_err());
    }
}
